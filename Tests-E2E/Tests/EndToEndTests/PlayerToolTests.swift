import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
@testable import KASTesting
import Testing

/// `player play` as a viewer runs it: the package URL on the origin, `--kas`, `--ca`, `--token`,
/// `--output`; progress and key timing on stderr; the refusals with exit 1 and no clear file.
@Suite struct PlayerToolTests {
    @Test(arguments: [("av", Publisher.Profile.fpsV2), ("bframes", .tdfHLS), ("silent", .tdfHLS)])
    func playsToAFileLikeTheSource(_ name: String, _ profile: Publisher.Profile) throws {
        let clip = try #require(try Clips.all().first { $0.name == name })
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, profile)
        let (result, media) = try ClientPlayer.playTool(url, kas: kas, token: try kas.token("tool-\(name)-\(profile)"))
        #expect(result.status == 0, "\(result.stderr)")
        let clear = try #require(media)
        #expect(try SourceMatch.check(clear, against: clip).isEmpty)
        #expect(result.stderr.contains("first clear byte"), "\(result.stderr)")
        if profile == .fpsV2 {
            #expect(result.stderr.contains("session started: video"))
            #expect(result.stderr.contains("key delivered: video"))
            #expect(result.stderr.contains("key delivered: audio"))
        }
    }

    @Test func refusalsExitOneWithNoClearFile() throws {
        let clip = try Clips.av()
        let (kas, origin) = try Stage.start()
        // Not entitled.
        let (plain, plainURL) = try Stage.publish(clip, .fpsV2)
        let denied = try ClientPlayer.playTool(plainURL, kas: kas, token: try kas.token("tool-denied", entitlements: []))
        #expect(denied.result.status == 1)
        #expect(denied.result.stderr.contains("(denied)") && denied.result.stderr.contains("HTTP 403"), "\(denied.result.stderr)")
        // The viewer learns why, in words and by code.
        #expect(denied.result.stderr.contains("not entitled to this title [refusal not_entitled]"), "\(denied.result.stderr)")
        #expect(denied.media == nil)
        // Swapped keyAccess objects.
        let swappedName = "tool-swapped-\(UUID().uuidString.prefix(8).lowercased()).tdf"
        try Tampering.swapKeyAccess(plain.path, into: origin.root + "/" + swappedName)
        let swapped = try ClientPlayer.playTool(origin.url(swappedName), kas: kas, token: try kas.token("tool-swapped"))
        #expect(swapped.result.status == 1)
        #expect(swapped.result.stderr.contains("HTTP 403"), "\(swapped.result.stderr)")
        #expect(swapped.media == nil)
        // A lapsed rental.
        let (rental, rentalURL) = try Stage.publish(clip, .fpsV2, mediaFlags: ["--rental-purchase-window", "60"])
        let bought = Int64(Date().timeIntervalSince1970) - 3600
        let lapsed = try ClientPlayer.playTool(rentalURL, kas: kas,
                                               token: try kas.token("tool-lapsed", rentals: [rental.assetID: bought]))
        #expect(lapsed.result.status == 1)
        #expect(lapsed.result.stderr.contains("HTTP 403"), "\(lapsed.result.stderr)")
        #expect(lapsed.result.stderr.contains("[refusal rental_purchase_window_closed]"), "\(lapsed.result.stderr)")
        #expect(lapsed.media == nil)
    }

    @Test func secondPlaybackOverTheLimitThenAfterTheFirstEnds() throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2, mediaFlags: ["--max-streams", "1"])
        let token = try kas.token("tool-one-stream")
        let viewer = Viewer(kas: kas, token: token)
        let first = try ReferencePlayer.play(url, viewer: viewer, holdSessions: true)
        #expect(first.statuses.allSatisfy { $0 == 200 })
        let refused = try ClientPlayer.playTool(url, kas: kas, token: token)
        #expect(refused.result.status == 1)
        #expect(refused.result.stderr.contains("(concurrencyLimit)") && refused.result.stderr.contains("HTTP 429"),
                "\(refused.result.stderr)")
        #expect(refused.result.stderr.contains("[refusal concurrent_streams]"), "\(refused.result.stderr)")
        #expect(refused.media == nil)
        for id in first.sessionIDs { _ = try viewer.endSession(id) }
        let played = try ClientPlayer.playTool(url, kas: kas, token: token)
        #expect(played.result.status == 0, "\(played.result.stderr)")
        #expect(try SourceMatch.check(try #require(played.media), against: clip).isEmpty)
    }

    /// The KAS's certificate chains to the run's private CA, and only that CA is trusted: with
    /// another CA file the player fails in the TLS handshake, before any credential is sent.
    @Test func kasOutsideTheTrustedCAIsRefused() throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2)
        let other = try TestCertificate.generate()
        defer { other.remove() }
        let output = Scratch.directory("untrusted") + "/clear.mp4"
        let result = try run(try Tools.player, ["play", url, "--kas", kas.publicURL, "--ca", other.certificatePath,
                                                "--token", try kas.token("tool-untrusted"), "--output", output])
        #expect(result.status == 1)
        #expect(result.stderr.contains("(transport)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
