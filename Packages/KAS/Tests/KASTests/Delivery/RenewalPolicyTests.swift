import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import MediaDRMMedia
import Synchronization
import Testing

/// Issue 28, "Checks that are skipped": a media-URL renewal runs the title's policy again for the
/// token it presents. The whole KAS in process on a clock the test moves.
@Suite struct RenewalPolicyTests {
    static let kasURL = "http://localhost:9"

    /// A clock that starts at the real time (tokens are minted against it) and moves on demand.
    final class MovableClock: Sendable {
        private let offset = Mutex<TimeInterval>(0)
        func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
        var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    }

    @Test func aRentalWhosePurchaseWindowClosedSinceTheStartIsNotRenewed() throws {
        let clock = MovableClock()
        let harness = try KASTestHarness(configure: { $0.acceptedKASURLs = [Self.kasURL] }, clock: { clock.now })
        defer { harness.stop() }
        let package = try harness.catalogue(MediaRules(rentalPurchaseWindowSeconds: 3600), kasURL: Self.kasURL, title: "Rental")
        // Bought 3,590 s ago: the purchase window has ten seconds left, and no key was delivered,
        // so the playback window has not opened.
        let purchased = Int64(clock.now.timeIntervalSince1970) - 3590
        let token = try harness.token(sub: "renter", entitlements: [MediaFixture.attribute], rentals: [package.uuid: purchased])
        let started = try harness.post("/media/v1/playback", token: token,
                                       json: [("assetId", .string(package.uuid)), ("drmSystem", .string("tdf"))])
        #expect(started.status == 200, "\(started.text)")
        let playbackID = try #require((try JSONParser.parse(started.body)).object?["playbackId"]?.string)
        let path = "/media/v1/playback/\(playbackID)/media-url"
        #expect(try harness.post(path, token: token, json: []).status == 200)

        clock.advance(30)   // the purchase window closed; the playback itself is still live
        let refused = try harness.post(path, token: token, json: [])
        #expect(refused.status == 403, "\(refused.text)")
        #expect((try JSONParser.parse(refused.body)).object?["reason"]?.string == "rental_purchase_window_closed")
        #expect(!refused.text.contains("mediaUrl"))
        #expect(harness.auditEvents(sub: "renter").contains { $0["event"]?.string == "playback_renewal" && $0["decision"]?.string == "deny"
            && $0["reason"]?.string == "rental_purchase_window_closed" })
    }
}
