import Foundation
import KASTesting
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing

/// A real live tdf-hls directory for a KAS: ffmpeg's fragmented MP4 of a 12 s test pattern (an
/// IDR frame every 2 s) fed on standard input to the project's `packager live` with 2 s segments
/// and 6 s key periods, its keys wrapped to the KAS's RSA key and its URL. Six segments, periods
/// 0 (segments 0-2) and 1 (segments 3-5).
struct LiveStreamFixture {
    static let attribute = "https://example.com/attr/tier/value/gold"
    static let keyPeriodSeconds = 6

    let directory: String
    /// One segment's TDF as written, with the period its policy names.
    struct Segment {
        let reader: TDFArchiveReader
        let period: Int64
        let periodStart: Int64
        /// The period's length the packager bound into the policy (`livePeriodSeconds`).
        let periodSeconds: Int64?
    }
    let segments: [Segment]

    init(kas: KASTestHarness, in work: String) throws {
        directory = work + "/live"
        let policy = work + "/policy.json", publicKey = work + "/kas.pub.pem", stream = work + "/encoder.mp4"
        try Data(#"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"\#(Self.attribute)"}],"dissem":[]}}"#.utf8)
            .write(to: URL(fileURLWithPath: policy))
        try Data(kas.rsaPublicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicKey))
        try ProjectTools.check(runProcess("/usr/bin/ffmpeg", [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-t", "12",
            "-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
            "-f", "mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-y", stream,
        ]), "ffmpeg")
        // The encoder's bytes on the packager's standard input, as a pipe from ffmpeg gives them.
        try ProjectTools.check(runProcess(try ProjectTools.packager(), [
            "live", "--input", "-", "--profile", "tdf-hls", "-o", directory, "--kas-url", kas.publicURL,
            "--kas-public-key", publicKey, "--policy", policy, "--segment-duration", "2", "--window", "6",
            "--key-period", String(Self.keyPeriodSeconds), "--quiet",
        ], stdin: try Data(contentsOf: URL(fileURLWithPath: stream))), "packager live")

        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tdf") }
        var segments: [(Int, Segment)] = []
        for name in names {
            let number = try #require(Int(name.dropLast(4).split(separator: "segment").last ?? ""), "\(name)")
            let reader = try TDFArchiveReader(url: URL(fileURLWithPath: directory + "/" + name))
            let rules = try MediaRules(json: try #require(reader.policy.media))
            segments.append((number, Segment(reader: reader, period: try #require(rules.livePeriod),
                                              periodStart: try #require(rules.livePeriodStart),
                                              periodSeconds: rules.livePeriodSeconds)))
        }
        self.segments = segments.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The first segment of a period.
    func segment(period: Int64) throws -> Segment {
        try #require(segments.first { $0.period == period }, "no segment of period \(period)")
    }

    /// The `POST /media/v1/rewrap` body for one segment's key access objects under its policy.
    static func rewrapBody(_ segment: Segment, session: String, clientKey: String) -> JSONValue {
        let info = segment.reader.manifest.encryptionInformation
        let objects = info.keyAccess.enumerated().map { index, object in
            JSONValue.object(JSONObject([("keyAccessObject", object.jsonValue), ("keyAccessObjectId", .string("k\(index)"))]))
        }
        let request = JSONValue.object(JSONObject([
            ("algorithm", .string("ec:secp256r1")), ("keyAccessObjects", .array(objects)),
            ("policy", .object(JSONObject([("body", .string(info.policy)), ("id", .string("policy-0"))]))),
        ]))
        return MediaRewrapBody(sessionID: session, clientPublicKeyPEM: clientKey, requests: [request]).jsonValue
    }
}
