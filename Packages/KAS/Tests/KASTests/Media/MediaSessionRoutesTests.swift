import Dispatch
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Synchronization
import Testing

@Suite struct MediaSessionRoutesTests {
    @Test func certificateIsServedWithoutCredentialOnlyWhenConfigured() throws {
        let none = try MediaHarness()
        #expect(try Curl.run([none.server.url("/media/v1/certificate")]).status == 404)
        let bundle = Data((0..<300).map { UInt8($0 & 0xFF) })
        let some = try MediaHarness(configure: { $0.certificate = bundle })
        let result = try Curl.run([some.server.url("/media/v1/certificate")])
        #expect(result.status == 200)
        #expect(result.body == bundle)
    }

    @Test func sessionLifecycleOverHTTP() throws {
        let harness = try MediaHarness()
        let asset = UUID().uuidString.lowercased()
        let alice = try harness.viewer("alice@example.com")
        let bob = try harness.viewer("bob@example.com")

        #expect(try harness.startSession(token: nil ?? "not-a-token", asset: asset).result.status == 401)
        #expect(try harness.post("/media/v1/session/start", token: alice, body: ["assetId": "not-a-uuid", "protocol": "tdf"]).status == 400)
        #expect(try harness.post("/media/v1/session/start", token: alice, body: ["assetId": .string(asset), "protocol": "widevine"]).status == 400)
        #expect(try harness.post("/media/v1/session/start", token: alice,
                                 body: ["assetId": .string(asset), "protocol": "tdf", "userId": "alice"]).status == 400)
        #expect(try harness.post("/media/v1/session/start", token: alice,
                                 body: ["assetId": .string(asset), "protocol": "tdf", "device": ["securityLevel": "ultra"]]).status == 400)

        let (started, maybeID) = try harness.startSession(token: alice, asset: asset)
        #expect(started.status == 200)
        let id = try #require(maybeID)
        let body = try #require(try JSONParser.parse(started.body).object)
        #expect(body["status"]?.string == "started")
        #expect(body["heartbeatSeconds"]?.int64 == 60)
        #expect(body["expiresAt"]?.int64 == Int64(harness.clock.now.timeIntervalSince1970) + 180)
        // Opaque: a single safe path segment that names neither viewer nor asset.
        #expect(id.utf8.count == 43 && !id.contains("alice") && !id.contains(asset) && !id.contains(":"))

        #expect(try harness.post("/media/v1/session/\(id)/heartbeat", token: alice, body: [:]).status == 200)
        #expect(try harness.post("/media/v1/session/\(id)/heartbeat", token: bob, body: [:]).status == 404)
        #expect(try harness.delete("/media/v1/session/\(id)", token: bob).status == 404)
        #expect(try harness.delete("/media/v1/session/\(id)", token: alice).status == 200)
        #expect(try harness.delete("/media/v1/session/\(id)", token: alice).status == 404)
        #expect(try harness.post("/media/v1/session/\(id)/heartbeat", token: alice, body: [:]).status == 404)

        // An expired session answers 404 to its heartbeat.
        let second = try #require(try harness.startSession(token: alice, asset: asset).sessionId)
        harness.clock.advance(181)
        #expect(try harness.post("/media/v1/session/\(second)/heartbeat", token: alice, body: [:]).status == 404)
        // Nothing in the store is the id itself.
        #expect(try harness.store.session(idHash: second) == nil)
        #expect(try harness.store.session(idHash: MediaSessionID.hash(second)) != nil)
    }

    @Test func twentyParallelStartsAdmitExactlyTheLimit() throws {
        let harness = try MediaHarness(configure: { $0.defaultMaxConcurrentStreams = 2 })
        let asset = UUID().uuidString.lowercased()
        let token = try harness.viewer("carol@example.com")
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            let status = (try? harness.startSession(token: token, asset: asset).result.status) ?? -1
            statuses.withLock { $0.append(status) }
        }
        let all = statuses.withLock { $0 }
        #expect(all.filter { $0 == 200 }.count == 2)
        #expect(all.filter { $0 == 429 }.count == 18)
    }

    @Test func videoAndAudioSessionsOfTwoPlaybacksFitALimitOfTwo() throws {
        let harness = try MediaHarness(configure: { $0.defaultMaxConcurrentStreams = 2 })
        let asset = UUID().uuidString.lowercased()
        let token = try harness.viewer("dave@example.com")
        for playback in ["tv", "phone"] {
            for component in ["video", "audio"] {
                let (result, _) = try harness.startSession(token: token, asset: asset, playbackId: playback,
                                                           extra: [("component", .string(component))])
                #expect(result.status == 200)
            }
        }
        let third = try harness.startSession(token: token, asset: asset, playbackId: "laptop").result
        #expect(third.status == 429)
        #expect(third.text == #"{"error":"concurrency limit","reason":"concurrent_streams"}"#)
    }

    @Test func theLiveSessionBoundIsRefusedWithItsCode() throws {
        let harness = try MediaHarness(configure: { $0.maxLiveSessionsPerViewer = 1 })
        let token = try harness.viewer("erin@example.com")
        #expect(try harness.startSession(token: token, asset: UUID().uuidString.lowercased()).result.status == 200)
        let refused = try harness.startSession(token: token, asset: UUID().uuidString.lowercased()).result
        #expect(refused.status == 429 && refused.text == #"{"error":"too many sessions","reason":"too_many_sessions"}"#)
        #expect(harness.auditEvents.last?["reason"]?.string == "too_many_sessions")
    }

    /// Issue 28: a start ended at once holds no stream, so only a budget stops a loop of them.
    /// Past the viewer's session-start budget: 429 `rate limit` with Retry-After, audited, and
    /// nothing stored; another viewer starts as before, and the budget refills.
    @Test func sessionStartsPastTheViewersBudgetAre429WithRetryAfter() throws {
        let harness = try MediaHarness(configure: { $0.sessionStartsPerMinute = 3 })
        let asset = UUID().uuidString.lowercased()
        let flooder = try harness.viewer("flooder@example.com")
        let other = try harness.viewer("other@example.com")
        for _ in 0..<3 {
            let id = try #require(try harness.startSession(token: flooder, asset: asset).sessionId)
            #expect(try harness.delete("/media/v1/session/\(id)", token: flooder).status == 200)
        }
        let refused = try harness.startSession(token: flooder, asset: asset).result
        #expect(refused.status == 429 && refused.text == #"{"error":"rate limit"}"#)
        #expect(refused.header("Retry-After") == "20")
        #expect(harness.auditEvents.last?["event"]?.string == "session_start")
        #expect(harness.auditEvents.last?["reason"]?.string == "rate_limited")
        #expect(try harness.store.liveSessionCount(now: harness.clock.now) == 0)
        #expect(try harness.startSession(token: other, asset: asset).result.status == 200)
        harness.clock.advance(20)
        #expect(try harness.startSession(token: flooder, asset: asset).result.status == 200)
    }
}
