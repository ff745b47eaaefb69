import Foundation
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMTDF
import Testing
@testable import Client

/// The Client's tdf-hls key path for a policy with media rules, against a built `kas serve` with
/// its default limits: one media session, bulk rewraps through
/// `POST /media/v1/rewrap`, every segment verified and decrypted with its key.
@Suite struct TDFHLSMediaRewrapTests {
    /// A 3-hour title of 6 s segments: the playlist and 1,800 tiny Standard TDF segments are
    /// synthesized (no video encoded), one policy with media rules. Played with a lookahead of
    /// 600 segments, each window is one bulk rewrap that the client splits at the route's bound
    /// of 512 key access objects: 3 windows, 6 requests, far within the default 60 a minute.
    @Test func aThreeHourTitleGetsAllItsKeysWithinTheDefaultRateLimit() async throws {
        // A server of its own, so that its sessions and requests are not counted by the suites
        // that share `PlaybackFixture`'s.
        let kas = try OwnKAS()
        defer { kas.stop() }
        let directory = kas.directory.appendingPathComponent("segments")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let uuid = UUID().uuidString.lowercased()
        let rules = try JSONParser.parse(Data(#"{"v":1,"maxConcurrentStreams":1}"#.utf8))
        let options = TDFEncryptOptions(
            kasURL: kas.url, kasPublicKey: try KASPublicKey(pemRepresentation: kas.publicKeyPEM),
            policy: TDFPolicy(uuid: uuid, dataAttributes: [PlaybackFixture.attribute], media: rules))
        var playlist = "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:6\n#EXT-X-MAP:URI=\"video-init.mp4\"\n"
        var names: [String] = []
        for index in 0..<1_800 {
            let name = "video-segment\(index).tdf"
            try TDF.encrypt(Data("segment \(index)".utf8), options: options).write(to: directory.appendingPathComponent(name))
            playlist += "#EXTINF:6.0,\n\(name)\n"
            names.append(name)
        }
        playlist += "#EXT-X-ENDLIST\n"
        let media = try HLSParser.parseMedia(Data(playlist.utf8))
        #expect(media.segments.count == 1_800 && media.duration == 10_800)

        let client = try HTTPClient()
        let credential = try Credential(bearerToken: kas.token)
        let keys = TDFSegmentKeys(
            loader: DirectoryResourceLoader(directory: directory.path),
            components: [.init(id: "video", segments: media.segments.map(\.uri))],
            rewrap: OpenTDFRewrapClient(baseURL: kas.url, client: client, credential: credential),
            keyServiceURL: kas.url, lookahead: 600, clock: SystemPlaybackClock(), progress: nil)
        #expect(try TDFPolicy(base64: try keys.firstPolicy()).media != nil)
        let session = TDFHLSMediaSession(service: KASMediaService(baseURL: kas.url, client: client, credential: credential),
                                         assetID: uuid, rendition: "video", clock: SystemPlaybackClock(), progress: nil)
        keys.useMediaSession(try await session.start())
        var played = 0
        for index in 0..<1_800 {
            if try keys.clearSegment(component: 0, index: index) == Array("segment \(index)".utf8) { played += 1 }
        }
        await session.stop()
        #expect(played == 1_800)
        #expect(keys.rewrapCount == 3)
        // Six bulk requests (libcurl may send one again on a kept-alive connection the server
        // closed before answering; the KAS audits each it answered), none refused.
        let audit = (try? String(contentsOfFile: kas.directory.path + "/data/audit.log", encoding: .utf8)) ?? ""
        let rewraps = audit.split(separator: "\n").filter { $0.contains(#""event":"media_rewrap""#) }
        #expect((6...8).contains(rewraps.count) && rewraps.allSatisfy { $0.contains(#""reason":"keys_delivered""#) }, "\(rewraps)")
    }
}

/// A `kas serve` of the built binary with a fresh data directory and default limits on
/// 127.0.0.1, for one test; `stop()` ends it (SIGTERM, then SIGKILL past a bound).
final class OwnKAS {
    let directory: URL
    private(set) var url = ""
    let token: String
    let publicKeyPEM: String
    private let process = Process()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-own-kas-\(UUID().uuidString)")
        let data = directory.appendingPathComponent("data").path
        let kas = try Tools.builtTool("kas", env: "KAS")
        try Tools.check(Tools.run(kas, ["keys", "generate", "--data-dir", data]), "kas keys generate")
        let exported = try Tools.run(kas, ["keys", "export-public", "--data-dir", data])
        try Tools.check(exported, "kas keys export-public")
        publicKeyPEM = String(decoding: exported.stdout, as: UTF8.self)
        token = try PlaybackFixture.token(kas, data, sub: "three-hours",
                                          claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"]}"#)
        let log = directory.appendingPathComponent("kas.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: kas)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--data-dir", data]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // A bounded poll for the listening line; the bound only limits a failure.
        let deadline = Date().addingTimeInterval(120)
        var address: String?
        while address == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.contains(#""event":"listening""#) {
                address = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["address"] as? String
            }
            if address == nil { usleep(50_000) }
        }
        guard let address else {
            stop()
            throw FixtureError("kas serve did not start")
        }
        url = address
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
