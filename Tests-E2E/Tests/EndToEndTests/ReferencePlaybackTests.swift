import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import Testing
import MediaDRMZIP

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
        // The policy the KAS applied: the creator's attributes, the classification and the rules.
        let manifest = try JSONParser.parse(try ZIPReader(path: package.path).read(named: "manifest.json"))
        let policyText = try #require(manifest.object?["encryptionInformation"]?.object?["policy"]?.string)
        let policy = try #require(try JSONParser.parse(try Base64.decode(policyText)).object)
        #expect(policy["uuid"]?.string == package.assetID)
        #expect(policy["arkavo:media"]?.object?["maxConcurrentStreams"]?.int64 == 4)
        #expect(policy["arkavo:media"]?.object?["minSecurityLevel"]?.string == "software")
        #expect(policy["arkavo:classification"]?.object?["filter"]?.string == "passed")
        #expect(policy["body"]?.object?["dataAttributes"]?.array?.count == 1)
        let problems = try SourceMatch.check(outcome.media, against: clip)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The referee can fail: another clip, or one flipped byte in a sample, is told apart.
    @Test func refereeTellsDifferencesApart() throws {
        let clip = try Clips.av()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2)
        let outcome = try ReferencePlayer.play(url, viewer: Viewer(kas: kas, token: try kas.token("referee")))
        #expect(try SourceMatch.check(outcome.media, against: clip).isEmpty)
        #expect(!(try SourceMatch.check(outcome.media, against: try Clips.bframes()).isEmpty))
        var damaged = outcome.media
        let index = damaged.count - 100   // inside the last fragment's mdat
        damaged[index] ^= 0x01
        #expect(!(try SourceMatch.check(damaged, against: clip).isEmpty))
    }
}
