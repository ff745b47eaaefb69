import Foundation
import Testing

/// Package -> publish on the origin -> keys from the KAS over TLS -> decrypt and mux: the whole
/// chain with the protocol spoken by the test's own reference viewer (curl + Crypto) and the
/// Client library's media layer, for each clip.
@Suite struct ReferencePlaybackTests {
    @Test(arguments: ["av", "silent", "bframes"])
    func fpsV2PlaysBackLikeTheSource(_ name: String) throws {
        let clip = try #require(try Clips.all().first { $0.name == name })
        let (kas, _) = try Stage.start()
        let (package, url) = try Stage.publish(clip, .fpsV2)
        let viewer = Viewer(kas: kas, token: try kas.token("reference-\(name)"))
        let outcome = try ReferencePlayer.play(url, viewer: viewer)
        #expect(outcome.statuses.allSatisfy { $0 == 200 }, "\(outcome.steps)")
        #expect(outcome.keysDelivered == (clip.hasAudio ? 2 : 1))
        #expect(package.assetID.count == 36)
        let problems = try SourceMatch.check(outcome.media, against: clip)
        #expect(problems.isEmpty, "\(problems)")
    }
}
