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
        let kas = try KASServe("three-hours-kas")
        defer { kas.stop() }
        let token = try kas.token(subject: "three-hours", claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"]}"#)
        let directory = URL(fileURLWithPath: Scratch.directory("three-hours-segments"))
        let uuid = UUID().uuidString.lowercased()
        let rules = try JSONParser.parse(Data(#"{"v":1,"maxConcurrentStreams":1}"#.utf8))
        let options = TDFEncryptOptions(
            kasURL: kas.address, kasPublicKey: try KASPublicKey(pemRepresentation: kas.publicKeyPEM),
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
        let credential = try Credential(bearerToken: token)
        let keys = TDFSegmentKeys(
            loader: DirectoryResourceLoader(directory: directory.path),
            components: [.init(id: "video", segments: media.segments.map(\.uri))],
            rewrap: OpenTDFRewrapClient(baseURL: kas.address, client: client, credential: credential),
            keyServiceURL: kas.address, lookahead: 600, clock: SystemPlaybackClock(), progress: nil)
        #expect(try TDFPolicy(base64: try keys.firstPolicy()).media != nil)
        let session = TDFHLSMediaSession(service: KASMediaService(baseURL: kas.address, client: client, credential: credential),
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
        let audit = (try? String(contentsOfFile: kas.auditLog, encoding: .utf8)) ?? ""
        let rewraps = audit.split(separator: "\n").filter { $0.contains(#""event":"media_rewrap""#) }
        #expect((6...8).contains(rewraps.count) && rewraps.allSatisfy { $0.contains(#""reason":"keys_delivered""#) }, "\(rewraps)")
    }
}
