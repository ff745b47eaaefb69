import Client
import Foundation
import MediaDRMCrypto
import MediaDRMJSON
import MediaDRMTDF
import Testing

/// tdf-hls streams whose policy carries `arkavo:media`: their segment keys come only through a
/// live media session and `POST /media/v1/rewrap` (docs/protocol.md), with every media rule the
/// fps-v2 key request applies.
@Suite struct MediaRewrapTests {
    static let rentalRules = ["--max-streams", "1", "--rental-purchase-window", "86400", "--rental-playback-window", "3600"]

    /// One rental with one stream: `player play` plays it once bit-identically; a second playback
    /// while a first one is live is refused with the stream-limit code; two hours later by the
    /// KAS's clock, after a restart on the same data directory, the one-hour playback window
    /// counted from the recorded first play refuses it (within the purchase window, so a lost
    /// first-play record would let it play).
    @Test func rentalWithOneStreamPlaysOnceThenRefusesASecondPlaybackAndTheLapsedWindow() async throws {
        let clip = try Clips.av()
        let dataDirectory = Scratch.directory("kas-rewrap")
        let first = try KASFixture(dataDirectory: dataDirectory)
        let origin = try StaticOrigin(root: Scratch.directory("origin-rewrap"))
        defer { origin.stop() }
        let package = try Publisher.package(clip, profile: .tdfHLS, into: origin.root, name: "rental-hls", kasURL: first.publicURL,
                                            kasPublicKeyPEM: first.publicKeyPEM, mediaFlags: Self.rentalRules)
        let url = origin.url(package.originPath)
        let rentals = [package.assetID: Int64(Date().timeIntervalSince1970) - 60]
        let token = try first.token("hls-renter", rentals: rentals)

        let played = try ClientPlayer.playTool(url, kas: first, token: token)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        #expect(try SourceMatch.check(try #require(played.media), against: clip).isEmpty)
        #expect(played.result.stderr.contains("session started: video"), "\(played.result.stderr)")
        #expect(first.auditReasons().contains("keys_delivered"))

        // A second playback while the library's playback holds the one stream.
        let second = SecondPlayback()
        let holding = PlaybackSession(source: try PlaybackSource(argument: url),
                                      configuration: try ClientPlayer.configuration(kas: first, token: token))
        let output = MemoryOutput()
        try await holding.play(to: output) {
            second.result = try? ClientPlayer.playTool(url, kas: first, token: token)
        }
        #expect(try SourceMatch.check(Data(output.bytes), against: clip).isEmpty)
        let refused = try #require(second.result)
        #expect(refused.result.status == 1)
        #expect(refused.result.stderr.contains("HTTP 429") && refused.result.stderr.contains("[refusal concurrent_streams]"),
                "\(refused.result.stderr)")
        #expect(refused.media == nil)

        let port = try #require(Int(first.publicURL.split(separator: ":").last ?? ""))
        first.stop()
        let later = try KASFixture(dataDirectory: dataDirectory, clock: { Date().addingTimeInterval(7200) }, port: port)
        defer { later.stop() }
        let lapsed = try ClientPlayer.playTool(url, kas: later, token: try later.token("hls-renter", rentals: rentals, ttl: 3 * 3600))
        #expect(lapsed.result.status == 1)
        #expect(lapsed.result.stderr.contains("HTTP 403") && lapsed.result.stderr.contains("[refusal rental_playback_window_closed]"),
                "\(lapsed.result.stderr)")
        #expect(lapsed.media == nil)
        #expect(later.auditReasons().contains("rental_playback_window_closed"))
    }

    /// No key leaves for a viewer without the entitlement, through a session of another asset or
    /// another viewer, or in a request that carries a segment of another stream.
    @Test func othersSessionsAssetsAndStreamsGetNoKey() throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let rules = ["--max-streams", "4"]
        let (streamA, urlA) = try Stage.publish(clip, .tdfHLS, mediaFlags: rules)
        let (streamB, _) = try Stage.publish(clip, .tdfHLS, mediaFlags: rules)

        // `packager inspect` names the route that serves the stream's keys.
        let inspected = try run(try Tools.packager, ["inspect", streamA.path, "--json"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let summary = try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any]
        #expect(summary?["keyRoute"] as? String == "POST /media/v1/rewrap" && summary?["policyUUID"] as? String == streamA.assetID)

        let unentitled = try ClientPlayer.playTool(urlA, kas: kas, token: try kas.token("hls-unentitled", entitlements: []))
        #expect(unentitled.result.status == 1)
        #expect(unentitled.result.stderr.contains("[refusal not_entitled]"), "\(unentitled.result.stderr)")
        #expect(unentitled.media == nil)

        let alice = Viewer(kas: kas, token: try kas.token("hls-alice"))
        let mallory = Viewer(kas: kas, token: try kas.token("hls-mallory"))
        let segmentA = try Segment(streamA.path, 0), segmentA1 = try Segment(streamA.path, 1), segmentB = try Segment(streamB.path, 0)
        let ownSession = try Self.session(alice, streamA.assetID)

        // The control: the viewer's own session of this asset gets keys that open the segments.
        let (granted, keys) = try alice.rewrap(sessionID: ownSession, [segmentA.request(segmentA1)])
        #expect(granted.status == 200)
        #expect(try segmentA.reader.decrypt(payloadKey: try #require(keys["a0"])).count > 0)
        #expect(try segmentA1.reader.decrypt(payloadKey: try #require(keys["a1"])).count > 0)

        // A session of another asset.
        let otherAsset = try alice.rewrap(sessionID: try Self.session(alice, streamB.assetID), [segmentA.request()])
        #expect(otherAsset.0.status == 403 && otherAsset.1.isEmpty)
        #expect(otherAsset.0.json?["error"] as? String == "manifest refused")
        // Another viewer's session.
        let otherViewer = try alice.rewrap(sessionID: try Self.session(mallory, streamA.assetID), [segmentA.request()])
        #expect(otherViewer.0.status == 403 && otherViewer.1.isEmpty)
        // A key access object of stream B under stream A's policy, beside A's own.
        let foreign = try alice.rewrap(sessionID: ownSession, [Viewer.RewrapPolicy(
            policy: segmentA.policy, objects: [("a0", segmentA.keyAccess), ("b0", segmentB.keyAccess)])])
        #expect(foreign.0.status == 403 && foreign.1.isEmpty)
        // Stream B's segment with its own policy, beside A's.
        let foreignPolicy = try alice.rewrap(sessionID: ownSession, [segmentA.request(), segmentB.request(id: "b0")])
        #expect(foreignPolicy.0.status == 403 && foreignPolicy.1.isEmpty)
        let reasons = kas.auditReasons()
        #expect(reasons.contains("asset_mismatch") && reasons.contains("session_invalid")
                && reasons.contains("policy_binding_mismatch"), "\(reasons.suffix(8))")
    }

    /// A 3-hour title of 6 s segments (1,800 keys; the playlist and the segments' Standard TDFs
    /// synthesized, no video encoded) gets every key within the default rate limit: the media
    /// rewrap takes up to 512 key access objects a request, and the limit counts requests.
    @Test func threeHourPlaylistGetsAllItsKeysWithinTheDefaultRateLimit() throws {
        let (kas, _) = try Stage.start()
        let title = try SyntheticTitle(kas: kas, hours: 3, segmentSeconds: 6)
        #expect(title.segments.count == 1_800)
        #expect(title.playlist.components(separatedBy: "#EXTINF:6.0,").count - 1 == 1_800)
        let viewer = Viewer(kas: kas, token: try kas.token("hls-three-hours"))
        let session = try Self.session(viewer, title.assetID)
        var statuses: [Int] = []
        var delivered = 0
        for batch in stride(from: 0, to: title.segments.count, by: 512) {
            let slice = title.segments[batch..<min(batch + 512, title.segments.count)]
            let (response, keys) = try viewer.rewrap(sessionID: session, [Viewer.RewrapPolicy(
                policy: title.policy, objects: slice.map { ($0.id, $0.keyAccess) })])
            statuses.append(response.status)
            for segment in slice where keys[segment.id] == segment.key { delivered += 1 }
        }
        #expect(statuses == [200, 200, 200, 200], "\(kas.auditReasons().suffix(4))")
        #expect(delivered == 1_800)
        // One more than the bound is refused whole, with the bound named.
        let tooMany = try viewer.rewrap(sessionID: session, [Viewer.RewrapPolicy(
            policy: title.policy, objects: title.segments.prefix(513).map { ($0.id, $0.keyAccess) })])
        #expect(tooMany.0.status == 413)
        #expect((tooMany.0.json?["error"] as? String)?.contains("at most 512") == true, "\(tooMany.0.json ?? [:])")
    }

    static func session(_ viewer: Viewer, _ asset: String) throws -> String {
        let started = try viewer.startSession(asset: asset, playbackID: ContentKeySession.makePlaybackID(), component: "video")
        guard started.status == 200, let id = started.json?["sessionId"] as? String else {
            throw TestFailure("session start answered \(started.status)")
        }
        return id
    }
}

/// The second playback's outcome, written from inside the first one's hold.
private final class SecondPlayback: @unchecked Sendable {
    var result: (result: ProcessResult, media: Data?)?
}

/// One video segment of a packaged tdf-hls stream.
private struct Segment {
    let reader: TDFArchiveReader
    let index: Int
    var policy: String { reader.manifest.encryptionInformation.policy }
    var keyAccess: KeyAccessObject { reader.manifest.encryptionInformation.keyAccess[0] }

    init(_ directory: String, _ index: Int) throws {
        reader = try TDFArchiveReader(url: URL(fileURLWithPath: directory + "/video-segment\(index).tdf"))
        self.index = index
    }

    /// This segment's policy with this segment (and `others` under the same policy).
    func request(id: String? = nil, _ others: Segment...) -> Viewer.RewrapPolicy {
        Viewer.RewrapPolicy(policy: policy, objects: [(id ?? "a\(index)", keyAccess)] + others.map { ("a\($0.index)", $0.keyAccess) })
    }
}

/// A long title without video: an RFC 8216 media playlist of `hours` × 3600 / `segmentSeconds`
/// segments, and for each a payload key wrapped to the KAS (RSA-OAEP, as the packager wraps
/// them) under one policy with media rules, bound to it as the packager binds it.
private struct SyntheticTitle {
    struct Segment {
        let id: String
        let key: SecretKey
        let keyAccess: KeyAccessObject
    }

    let assetID: String
    let policy: String
    let playlist: String
    let segments: [Segment]

    init(kas: KASFixture, hours: Int, segmentSeconds: Int) throws {
        let count = hours * 3600 / segmentSeconds
        assetID = UUID().uuidString.lowercased()
        let rules = try JSONParser.parse(Data(#"{"v":1,"maxConcurrentStreams":1}"#.utf8))
        policy = try TDFPolicy(uuid: assetID, dataAttributes: [Publisher.premium], media: rules).base64
        let kasKey = try KASPublicKey(pemRepresentation: kas.publicKeyPEM)
        var playlist = "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:\(segmentSeconds)\n#EXT-X-MEDIA-SEQUENCE:0\n"
            + "#EXT-X-DEFINE:NAME=\"net-arkavo-profile\",VALUE=\"tdf-hls\"\n#EXT-X-MAP:URI=\"video-init.mp4\"\n"
        var segments: [Segment] = []
        for index in 0..<count {
            playlist += "#EXTINF:\(segmentSeconds).0,\nvideo-segment\(index).tdf\n"
            let key = try SecretKey(size: .bits256)
            let keyAccess = try KeyAccessObject.wrapping(key, to: kasKey, kasURL: kas.publicURL, policyBase64: policy)
            segments.append(Segment(id: "video-\(index)", key: key, keyAccess: keyAccess))
        }
        self.playlist = playlist + "#EXT-X-ENDLIST\n"
        self.segments = segments
    }
}
