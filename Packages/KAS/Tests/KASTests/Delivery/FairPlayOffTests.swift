import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMJSON
import Testing

/// A KAS configured without FairPlay (no `fairplay` section) offers none (docs/delivery.md
/// "Playbacks"): no FairPlay source in the delivery API, none among the views' DRM systems, and a
/// FairPlay playback refused with its reason before it is stored or takes a stream slot; the
/// other systems are served as before. Against a real `kas serve` and nginx (`DeliveryFixture`).
@Suite(.serialized) struct FairPlayOffTests {
    @Test func noFairPlaySourceNoFairPlayPlaybackAndTheReason() throws {
        let fixture = try DeliveryFixture(fairPlay: false)
        defer { fixture.stop() }
        let alice = try fixture.token("alice")

        let described = try fixture.request("GET", "/v2/media/\(fixture.assetID)", token: alice)
        #expect(described.status == 200, "\(described.text)")
        let sources = try #require(try JSONParser.parse(described.body).object?["playlist"]?.array?.first?.object?["sources"]?.array)
        let systems = sources.compactMap { $0.object?["drm"]?.object?.keys.first }
        #expect(Set(systems) == ["com.arkavo.tdf", "org.w3.clearkey"], "\(systems)")
        let viewSystems = sources.compactMap { $0.object?["playback"]?.object?["drmSystems"]?.array }.flatMap { $0 }
        #expect(!viewSystems.isEmpty && !viewSystems.contains(.string("fairplay")), "\(viewSystems)")

        let (refused, result) = try fixture.startPlayback(token: alice, drmSystem: "fairplay")
        #expect(refused == nil)
        #expect(result.status == 400)
        let body = try #require(try JSONParser.parse(result.body).object)
        #expect(body["reason"]?.string == "fairplay_not_offered")
        #expect(body["error"]?.string?.contains("ask for drmSystem clearkey or tdf") == true, "\(result.text)")
        #expect(!result.text.contains("md5="))

        // Nothing was started (no playback start audited), and the other systems play.
        func playbackStarts() -> Int { fixture.writtenLogs.split(separator: "\n").filter { $0.contains(#""playback_start""#) }.count }
        #expect(playbackStarts() == 0)
        // (Two viewers: the title allows one stream each.)
        for (system, viewer) in [("clearkey", alice), ("tdf", try fixture.token("bob"))] {
            let (playback, started) = try fixture.startPlayback(token: viewer, drmSystem: system)
            #expect(started.status == 200 && playback?["mediaUrl"] != nil, "\(system): \(started.text)")
        }
        #expect(playbackStarts() == 2)
    }
}
