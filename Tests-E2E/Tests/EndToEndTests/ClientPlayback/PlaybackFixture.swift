import Client
import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// Real parts for the Client's playback tests, made once per test process: the BUILT `kas`
/// serving a fresh data directory over plain http on 127.0.0.1 (`KASServe`), the suite's 4 s
/// clip with sound, an fps-v2 package and a tdf-hls stream packaged by the BUILT `packager` for
/// that KAS, a package for another key service, and Tools/python/range_server.py serving them
/// (`RangeOrigin`). Apart from the shared `Stage`, so the counts these suites take of its
/// requests and sessions are their own.
final class PlaybackFixture: @unchecked Sendable {
    let directory: URL
    let www: URL
    let kasURL: String
    let kasLog: URL
    let auditLog: URL
    let originURL: String
    let source: URL
    let sourceStreamHashes: [String: String]
    let entitledToken: String
    let unentitledToken: String
    /// The KAS's public key, for packages made later (`LazyLocalHeaders`).
    let publicKeyFile: URL
    let packageFile: URL
    let foreignPackageFile: URL
    let tdfHLSDirectory: URL
    /// `kas serve`, for `viewer()`; the origin, kept serving for the process's life.
    private let kas: KASServe
    private let origin: RangeOrigin

    static let attribute = Publisher.premium
    /// Made on first use, once per process (a static is initialised once); a failure is every test's.
    static let made: Result<PlaybackFixture, TestFailure> = Result { () throws(TestFailure) in
        do { return try PlaybackFixture() } catch { throw TestFailure("the playback fixture: \(error)") }
    }

    static func get() throws -> PlaybackFixture { try made.get() }

    private init() throws {
        directory = URL(fileURLWithPath: Scratch.directory("client-play"))
        www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        kas = try KASServe("client-play-kas")
        kasURL = kas.address
        kasLog = URL(fileURLWithPath: kas.log)
        auditLog = URL(fileURLWithPath: kas.auditLog)
        publicKeyFile = directory.appendingPathComponent("kas.pem")
        try Data(kas.publicKeyPEM.utf8).write(to: publicKeyFile)
        entitledToken = try kas.token(subject: "alice", claims: #"{"entitlements":["\#(Self.attribute)"]}"#)
        unentitledToken = try kas.token(subject: "bob", claims: #"{"entitlements":[]}"#)

        source = URL(fileURLWithPath: try Clips.av().path)
        sourceStreamHashes = try FFmpeg.streamHashes(source.path)
        let policy = directory.appendingPathComponent("policy.json")
        try Data(Publisher.policy(attributes: [Self.attribute]).utf8).write(to: policy)
        let common = ["--kas-public-key", publicKeyFile.path, "--policy", policy.path, "--segment-duration", "2", "--quiet"]
        let classification = ["--classification", Publisher.classification]
        let packager = try Tools.packager
        packageFile = www.appendingPathComponent("talk.tdf")
        try run(packager, ["package", source.path, "-o", packageFile.path, "--kas-url", kasURL] + common + classification)
            .check("packager fps-v2")
        foreignPackageFile = www.appendingPathComponent("foreign.tdf")
        try run(packager, ["package", source.path, "-o", foreignPackageFile.path,
                           "--kas-url", "https://kas.elsewhere.example"] + common + classification)
            .check("packager fps-v2 (other key service)")
        tdfHLSDirectory = www.appendingPathComponent("stream")
        try run(packager, ["package", source.path, "-o", tdfHLSDirectory.path + "/", "--profile", "tdf-hls",
                           "--kas-url", kasURL] + common).check("packager tdf-hls")

        origin = try RangeOrigin(root: www.path)
        originURL = origin.url("")
    }

    /// A viewer of its own for one test: the suites sharing this KAS run in parallel, so a test
    /// that counts requests or sessions counts only its own viewer's (the KAS logs and audits the
    /// viewer hash, `viewerHash(subject:)`).
    struct Viewer {
        let token: String
        let hash: String
    }

    func viewer(entitled: Bool = true) throws -> Viewer {
        let subject = "viewer-\(UUID().uuidString.lowercased())"
        let claims = entitled ? #"{"entitlements":["\#(Self.attribute)"]}"# : #"{"entitlements":[]}"#
        return Viewer(token: try kas.token(subject: subject, claims: claims),
                      hash: Self.viewerHash(subject: subject))
    }

    /// The viewer hash of a dev-issuer viewer, computed from docs/kas.md ("Audit log") rather
    /// than with the KAS's code: the first 16 hex digits of SHA-256 of the issuer
    /// (`urn:mediadrm:kas:dev-issuer`, `kas token`'s), a 0x00 byte and the hex SHA-256 of `sub`.
    static func viewerHash(subject: String) -> String {
        var input = Data("urn:mediadrm:kas:dev-issuer".utf8)
        input.append(0)
        input.append(contentsOf: Hex.encode(SHA256Digest.hash(data: Data(subject.utf8))).utf8)
        return String(Hex.encode(SHA256Digest.hash(data: input)).prefix(16))
    }

    /// Requests of `viewer` the KAS has logged so far.
    func kasRequestCount(of viewer: Viewer) -> Int {
        let text = (try? String(contentsOf: kasLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(#""event":"request""#) && $0.contains(#""viewer":"\#(viewer.hash)""#) }.count
    }

    /// `viewer`'s media sessions started and not ended, from the KAS's audit log.
    func liveSessionCount(of viewer: Viewer) -> Int {
        let (started, ended) = sessionCounts(of: viewer)
        return started - ended
    }

    /// `viewer`'s media sessions started and ended so far, from the KAS's audit log.
    func sessionCounts(of viewer: Viewer) -> (started: Int, ended: Int) {
        let text = (try? String(contentsOf: auditLog, encoding: .utf8)) ?? ""
        var started = 0, ended = 0
        for line in text.split(separator: "\n") where line.contains(#""viewer":"\#(viewer.hash)""#) {
            if line.contains(#""event":"session_start""#), line.contains(#""decision":"allow""#) { started += 1 }
            if line.contains(#""event":"session_end""#), line.contains(#""decision":"allow""#) { ended += 1 }
        }
        return (started, ended)
    }

    func configuration(token: String) throws -> PlaybackConfiguration {
        PlaybackConfiguration(keyServiceURL: kasURL, credential: try Credential(bearerToken: token),
                              client: try HTTPClient())
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
