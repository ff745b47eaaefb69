import Foundation
import Testing

/// The refusals a real deployment meets, each through the KAS's real decision path: the right
/// status, the specific reason in the audit log, and no clear media byte.
@Suite struct RefusalTests {
    @Test func viewerWithoutTheEntitlementGetsNoKey() throws {
        let clip = try Clips.av()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2)
        let viewer = Viewer(kas: kas, token: try kas.token("no-entitlement", entitlements: ["https://example.com/attr/tier/value/basic"]))
        let outcome = try ReferencePlayer.play(url, viewer: viewer)
        #expect(outcome.steps == ["start video 200", "key video 403"])
        #expect(outcome.keysDelivered == 0)
        #expect(outcome.media.isEmpty)
        #expect(kas.auditReasons().contains("not_entitled"))
    }

    @Test func secondPlaybackOverTheStreamLimitWaitsForTheFirstToEnd() throws {
        let clip = try Clips.av()
        let (kas, _) = try Stage.start()
        let (_, url) = try Stage.publish(clip, .fpsV2, mediaFlags: ["--max-streams", "1"])
        let viewer = Viewer(kas: kas, token: try kas.token("one-stream"))
        // The first playback gets both keys (video and audio sessions share its one slot) and
        // keeps its sessions open.
        let first = try ReferencePlayer.play(url, viewer: viewer, holdSessions: true)
        #expect(first.statuses == [200, 200, 200, 200], "\(first.steps)")
        #expect(!first.media.isEmpty)
        // A second playback while it runs: refused at session start, before any key.
        let second = try ReferencePlayer.play(url, viewer: viewer)
        #expect(second.steps == ["start video 429"])
        #expect(second.media.isEmpty)
        // The first ends (DELETE of each session) and frees the slot.
        for id in first.sessionIDs { #expect(try viewer.endSession(id).status == 200) }
        let third = try ReferencePlayer.play(url, viewer: viewer)
        #expect(third.statuses == [200, 200, 200, 200], "\(third.steps)")
        #expect(try SourceMatch.check(third.media, against: clip).isEmpty)
    }

    @Test func expiredRentalGetsNoKey() throws {
        let clip = try Clips.silent()
        let (kas, _) = try Stage.start()
        let (package, url) = try Stage.publish(clip, .fpsV2, mediaFlags: ["--rental-purchase-window", "3600",
                                                                           "--rental-playback-window", "600"])
        let now = Int64(Date().timeIntervalSince1970)
        // Bought two hours ago, never played: the purchase window closed an hour ago.
        let lapsed = Viewer(kas: kas, token: try kas.token("lapsed-renter", rentals: [package.assetID: now - 7200]))
        let refused = try ReferencePlayer.play(url, viewer: lapsed)
        #expect(refused.steps == ["start video 200", "key video 403"])
        #expect(refused.media.isEmpty)
        #expect(kas.auditReasons().contains("rental_purchase_window_closed"))
        // The same package for a viewer who rented it a minute ago plays.
        let renter = Viewer(kas: kas, token: try kas.token("fresh-renter", rentals: [package.assetID: now - 60]))
        let played = try ReferencePlayer.play(url, viewer: renter)
        #expect(played.statuses.allSatisfy { $0 == 200 } && !played.media.isEmpty, "\(played.steps)")
    }

    @Test func packageWithSwappedKeyAccessIsRefused() throws {
        let clip = try Clips.av()
        let (kas, origin) = try Stage.start()
        let (package, _) = try Stage.publish(clip, .fpsV2)
        let name = "swapped-\(UUID().uuidString.prefix(8).lowercased()).tdf"
        try Tampering.swapKeyAccess(package.path, into: origin.root + "/" + name)
        let viewer = Viewer(kas: kas, token: try kas.token("swapped"))
        let outcome = try ReferencePlayer.play(origin.url(name), viewer: viewer)
        #expect(outcome.steps == ["start video 200", "key video 403"])
        #expect(outcome.media.isEmpty)
        #expect(kas.auditReasons().contains("key_binding_mismatch"))
    }

    /// A rental's first play is recorded in the KAS's SQLite store: it survives a restart, so the
    /// playback window keeps counting from it.
    @Test func firstPlayRecordSurvivesAKASRestart() throws {
        let clip = try Clips.silent()
        let dataDirectory = Scratch.directory("kas-restart")
        let first = try KASFixture(dataDirectory: dataDirectory)
        let origin = try StaticOrigin(root: Scratch.directory("origin-restart"))
        defer { origin.stop() }
        let package = try Publisher.package(clip, profile: .fpsV2, into: origin.root, name: "rental", kasURL: first.publicURL,
                                            kasPublicKeyPEM: first.publicKeyPEM,
                                            mediaFlags: ["--rental-purchase-window", "86400", "--rental-playback-window", "3600"])
        let url = origin.url(package.originPath)
        let rentals = [package.assetID: Int64(Date().timeIntervalSince1970) - 60]
        let before = try ReferencePlayer.play(url, viewer: Viewer(kas: first, token: try first.token("restart", rentals: rentals)))
        #expect(before.statuses.allSatisfy { $0 == 200 } && !before.media.isEmpty, "\(before.steps)")
        let oldURL = first.publicURL
        first.stop()

        // Restarted on the same data directory (another port; the package names the old URL).
        let again = try KASFixture(dataDirectory: dataDirectory, acceptedURLs: [oldURL])
        let replay = try ReferencePlayer.play(url, viewer: Viewer(kas: again, token: try again.token("restart", rentals: rentals)))
        #expect(replay.statuses.allSatisfy { $0 == 200 } && !replay.media.isEmpty, "\(replay.steps)")
        again.stop()

        // Two hours later by the KAS's clock: within the purchase window, so a lost first-play
        // record would pass; the recorded one closes the one-hour playback window.
        let later = try KASFixture(dataDirectory: dataDirectory, acceptedURLs: [oldURL],
                                   clock: { Date().addingTimeInterval(7200) })
        defer { later.stop() }
        let token = try later.token("restart", rentals: rentals, ttl: 3 * 3600)
        let lapsed = try ReferencePlayer.play(url, viewer: Viewer(kas: later, token: token))
        #expect(lapsed.steps == ["start video 200", "key video 403"])
        #expect(lapsed.media.isEmpty)
        #expect(later.auditReasons().contains("rental_playback_window_closed"))
    }
}
