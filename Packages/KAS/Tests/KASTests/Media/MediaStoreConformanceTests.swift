import Dispatch
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Synchronization
import Testing

/// The behaviour every `MediaStore` shares, each test run against SQLite and against Redis
/// (`MediaStoreKind`): the Redis store must give every answer the SQLite store gives.
@Suite(.sharedRedis) struct MediaStoreConformanceTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: MediaStoreKind.allCases) func sessionLifecycleWithHeartbeatExpiry(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            guard case .started(let record, _) = try store.startSession(.test("s1"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("not started"); return }
            #expect(record.expires == t0.addingTimeInterval(180))
            #expect(try store.session(idHash: "s1")?.isLive(at: t0.addingTimeInterval(179)) == true)
            // Someone else's heartbeat does nothing; the owner's extends the session.
            #expect(try store.heartbeat(idHash: "s1", viewer: "v2", now: t0.addingTimeInterval(100), timeout: 180) == nil)
            let beat = try store.heartbeat(idHash: "s1", viewer: "v1", now: t0.addingTimeInterval(100), timeout: 180)
            #expect(beat?.expires == t0.addingTimeInterval(280))
            #expect(try store.liveSessionCount(now: t0.addingTimeInterval(250)) == 1)
            // Past its expiry it is dead: no heartbeat revives it, it is not counted.
            #expect(try store.heartbeat(idHash: "s1", viewer: "v1", now: t0.addingTimeInterval(281), timeout: 180) == nil)
            #expect(try store.liveSessionCount(now: t0.addingTimeInterval(281)) == 0)
            // Ending: only the owner, only once.
            _ = try store.startSession(.test("s2"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            #expect(try store.endSession(idHash: "s2", viewer: "v2", now: t0) == false)
            #expect(try store.endSession(idHash: "s2", viewer: "v1", now: t0) == true)
            #expect(try store.endSession(idHash: "s2", viewer: "v1", now: t0) == false)
            #expect(try store.session(idHash: "s2")?.ended != nil)
        }
    }

    /// Issue 21: a playback holds one live session per component. A session naming its
    /// component at start replaces the live one; one bound at its first key request replaces
    /// the one that held the component; other components and playbacks are untouched.
    @Test(arguments: MediaStoreKind.allCases) func aPlaybackHoldsOneLiveSessionPerComponent(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            func start(_ id: String, component: String?, playback: String = "shared") throws -> SessionStartOutcome {
                var new = NewMediaSession.test(id, playback: playback)
                new.component = component
                return try store.startSession(new, limit: 2, maxLiveSessionsPerViewer: 4, now: t0)
            }
            guard case .started(_, replaced: 0) = try start("v1", component: "video"),
                  case .started(_, replaced: 0) = try start("a1", component: "audio") else {
                Issue.record("first sessions not started"); return
            }
            // Nine more video sessions of the same playback: each replaces the previous one, and
            // the per-viewer bound of 4 never refuses them.
            for index in 2...10 {
                #expect(try start("v\(index)", component: "video") != .tooManySessions)
            }
            let live = try (1...10).filter { try store.session(idHash: "v\($0)")?.isLive(at: t0) == true }
            #expect(live == [10])
            #expect(try store.session(idHash: "a1")?.isLive(at: t0) == true)
            // The second playback fits the limit of 2; a third does not.
            guard case .started = try start("other", component: "video", playback: "second") else {
                Issue.record("second playback refused"); return
            }
            #expect(try start("third", component: "video", playback: "third") == .concurrencyLimit)

            // Bound at the first key request: the binding session takes the component over.
            _ = try start("late", component: nil)
            #expect(try store.bindComponent(idHash: "late", component: "video", now: t0) == .bound(replaced: 1))
            #expect(try store.session(idHash: "v10")?.isLive(at: t0) == false)
            #expect(try store.bindComponent(idHash: "late", component: "video", now: t0) == .bound(replaced: 0))
            #expect(try store.bindComponent(idHash: "late", component: "audio", now: t0) == .conflict)
            #expect(try store.session(idHash: "a1")?.isLive(at: t0) == true)
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func concurrencyCountsPlaybacksAndFreesSlots(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            // Two playbacks, each a video and an audio session, fit a limit of 2.
            for (id, playback) in [("v-a", "one"), ("a-a", "one"), ("v-b", "two"), ("a-b", "two")] {
                let outcome = try store.startSession(NewMediaSession.test(id, playback: playback), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                guard case .started = outcome else { Issue.record("\(id) refused"); return }
            }
            #expect(try store.startSession(.test("v-c", playback: "three"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            // Another viewer and another asset are counted apart.
            guard case .started = try store.startSession(.test("x", viewer: "v2", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0),
                  case .started = try store.startSession(.test("y", asset: "a2", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("independent session refused"); return }
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "one", now: t0) == 0)
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "two", now: t0) == 1)
            // Ending both sessions of playback one frees its slot.
            _ = try store.endSession(idHash: "v-a", viewer: "v1", now: t0)
            #expect(try store.startSession(.test("v-c", playback: "three"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            _ = try store.endSession(idHash: "a-a", viewer: "v1", now: t0)
            guard case .started = try store.startSession(.test("v-c", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("freed slot not reusable"); return }
            // Expiry frees slots too.
            #expect(try store.startSession(.test("v-d", playback: "four"), limit: 2, maxLiveSessionsPerViewer: 10,
                                           now: t0.addingTimeInterval(181)) != .concurrencyLimit)
            // The per-viewer cap over all assets.
            #expect(try store.startSession(.test("z", asset: "a3"), limit: nil, maxLiveSessionsPerViewer: 1,
                                           now: t0.addingTimeInterval(181)) == .tooManySessions)
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func twentyParallelStartsWithALimitOfTwoAdmitExactlyTwo(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            // Two connections or clients (as two server processes or nodes would have) racing.
            let second = try another()
            let started = Atomic<Int>(0)
            let limited = Atomic<Int>(0)
            let failed = Atomic<Int>(0)
            let now = t0
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                let target: any MediaStore = index % 2 == 0 ? store : second
                let new = NewMediaSession(idHash: "race-\(index)", viewer: "v1", asset: "a1", protocol: .tdf,
                                          playback: "p-\(index)", timeout: 180)
                switch try? target.startSession(new, limit: 2, maxLiveSessionsPerViewer: 100, now: now) {
                case .started?: started.add(1, ordering: .relaxed)
                case .concurrencyLimit?: limited.add(1, ordering: .relaxed)
                default: failed.add(1, ordering: .relaxed)
                }
            }
            #expect(started.load(ordering: .relaxed) == 2)
            #expect(limited.load(ordering: .relaxed) == 18)
            #expect(failed.load(ordering: .relaxed) == 0)
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func firstPlayIsRecordedOnceAndLimitsAreKept(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            #expect(try store.firstPlay(viewer: "v1", asset: "a1") == nil)
            #expect(try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0) == t0)
            #expect(try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0.addingTimeInterval(60)) == t0)
            #expect(try store.firstPlay(viewer: "v1", asset: "a1") == t0)
            #expect(try store.assetStreamLimit(asset: "a1") == nil)
            try store.setAssetStreamLimit(asset: "a1", limit: 3, now: t0)
            #expect(try store.assetStreamLimit(asset: "a1") == 3)
            try store.setAssetStreamLimit(asset: "a1", limit: nil, now: t0)
            #expect(try store.assetStreamLimit(asset: "a1") == nil)
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func rateBucketRefillsContinuously(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            for _ in 0..<60 { #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0) == .allowed) }
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0) == .limited(retryAfter: 1))
            #expect(try store.consumeRateToken(key: "other", perMinute: 60, now: t0) == .allowed)
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0.addingTimeInterval(1)) == .allowed)
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0.addingTimeInterval(1)) == .limited(retryAfter: 1))
            for _ in 0..<2 { _ = try store.consumeRateToken(key: "slow", perMinute: 2, now: t0) }
            #expect(try store.consumeRateToken(key: "slow", perMinute: 2, now: t0) == .limited(retryAfter: 30))
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func everythingSurvivesReopening(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            _ = try store.startSession(.test("keep", playback: "pb"), limit: 1, maxLiveSessionsPerViewer: 10, now: t0)
            try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0)
            try store.setAssetStreamLimit(asset: "a1", limit: 1, now: t0)
            for _ in 0..<5 { _ = try store.consumeRateToken(key: "k", perMinute: 5, now: t0) }
            // A second connection sees every commit while the first is still open...
            let other = try another()
            #expect(try other.session(idHash: "keep")?.playback == "pb")
            #expect(try other.startSession(.test("more", playback: "pb2"), limit: 1, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            #expect(try other.firstPlay(viewer: "v1", asset: "a1") == t0)
            #expect(try other.assetStreamLimit(asset: "a1") == 1)
            #expect(try other.consumeRateToken(key: "k", perMinute: 5, now: t0) == .limited(retryAfter: 12))
        }
    }

    @Test(arguments: MediaStoreKind.allCases) func pruneDropsOnlyStaleRows(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, another in
            _ = try store.startSession(.test("old"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            _ = try store.startSession(.test("new"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0.addingTimeInterval(1000))
            try store.prune(olderThan: t0.addingTimeInterval(500), now: t0.addingTimeInterval(1000))
            #expect(try store.session(idHash: "old") == nil)
            #expect(try store.session(idHash: "new") != nil)
        }
    }

    /// Releasing a playback ends all its live sessions at once and frees its slot; other
    /// playbacks, viewers and ended sessions are untouched.
    @Test(arguments: MediaStoreKind.allCases) func endingAPlaybackEndsItsLiveSessions(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, _ in
            for (id, playback) in [("v-a", "one"), ("a-a", "one"), ("x-a", "one"), ("v-b", "two")] {
                guard case .started = try store.startSession(NewMediaSession.test(id, playback: playback), limit: 2,
                                                             maxLiveSessionsPerViewer: 10, now: t0)
                else { Issue.record("\(id) refused"); return }
            }
            _ = try store.startSession(.test("other", viewer: "v2", playback: "one"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
            #expect(try store.endSession(idHash: "x-a", viewer: "v1", now: t0) == true)
            #expect(try store.startSession(.test("v-c", playback: "three"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            #expect(try store.endPlaybackSessions(viewer: "v1", asset: "a1", playback: "one", now: t0) == 2)
            #expect(try store.endPlaybackSessions(viewer: "v1", asset: "a1", playback: "one", now: t0) == 0)
            #expect(try store.session(idHash: "v-a")?.ended == t0)
            #expect(try store.session(idHash: "v-b")?.isLive(at: t0) == true)
            #expect(try store.session(idHash: "other")?.isLive(at: t0) == true)
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "one", now: t0) == nil)
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "two", now: t0) == 0)
            guard case .started = try store.startSession(.test("v-c", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("released slot not reusable"); return }
            // An expired session is not live, so not ended again.
            #expect(try store.endPlaybackSessions(viewer: "v1", asset: "a1", playback: "two", now: t0.addingTimeInterval(181)) == 0)
        }
    }

    /// A record reads back as it was stored, every field, times to the millisecond (rounded
    /// down), whatever characters the viewer and asset keys hold.
    @Test(arguments: MediaStoreKind.allCases) func recordsReadBackToTheMillisecond(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, _ in
            let now = t0.addingTimeInterval(0.0016)
            var new = NewMediaSession(idHash: "full", viewer: "view:er", asset: "as:set", component: "video",
                                      protocol: .fairplay, playback: "client:pb", device: #"{"model":"x"}"#, timeout: 60.0004)
            guard case .started(let started, replaced: 0) = try store.startSession(new, limit: 1, maxLiveSessionsPerViewer: 1, now: now)
            else { Issue.record("not started"); return }
            let ms = Date(timeIntervalSince1970: 1_800_000_000.001)
            #expect(started == MediaSessionRecord(idHash: "full", viewer: "view:er", asset: "as:set", component: "video",
                                                  protocol: .fairplay, playback: "client:pb", device: #"{"model":"x"}"#,
                                                  created: ms, lastHeartbeat: ms, expires: ms.addingTimeInterval(60),
                                                  ended: nil))
            #expect(try store.session(idHash: "full") == started)
            #expect(try store.session(idHash: "unknown") == nil)
            #expect(try store.liveSessionCount(now: ms) == 1)
            // Keys that would run together if joined naively stay apart: ("view", "er:as:set").
            new.idHash = "apart"
            new.viewer = "view"
            new.asset = "er:as:set"
            guard case .started = try store.startSession(new, limit: 1, maxLiveSessionsPerViewer: 1, now: now) else {
                Issue.record("another viewer's asset was counted"); return
            }
            #expect(try store.recordFirstPlay(viewer: "view:er", asset: "as:set", at: now) == ms)
            #expect(try store.firstPlay(viewer: "view", asset: "er:as:set") == nil)
        }
    }

    /// A session id is stored once: a second start with it fails and changes nothing.
    @Test(arguments: MediaStoreKind.allCases) func aStoredSessionIdIsNotStoredTwice(_ kind: MediaStoreKind) throws {
        try kind.withStores { store, _ in
            var first = NewMediaSession.test("same", playback: "pb")
            first.component = "video"
            _ = try store.startSession(first, limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            #expect(throws: StoreError(.constraint, "")) {
                _ = try store.startSession(first, limit: nil, maxLiveSessionsPerViewer: 10, now: t0.addingTimeInterval(1))
            }
            #expect(try store.session(idHash: "same")?.isLive(at: t0.addingTimeInterval(1)) == true)
            #expect(try store.session(idHash: "same")?.created == t0)
            #expect(try store.liveSessionCount(now: t0.addingTimeInterval(1)) == 1)
        }
    }

    // MARK: Record bounds (issue 28)

    /// A viewer keeps at most its share of ended sessions: each start drops that viewer's
    /// oldest ended or expired ones beyond it (by the time they ended), and nobody else's.
    @Test(arguments: MediaStoreKind.allCases) func aViewerKeepsItsShareOfEndedSessions(_ kind: MediaStoreKind) throws {
        try kind.withStores(bounds: RecordBounds(endedPerViewer: 2, total: 100)) { store, _ in
            func start(_ id: String, viewer: String = "v1", at seconds: TimeInterval, timeout: TimeInterval = 180) throws {
                guard case .started = try store.startSession(.test(id, viewer: viewer, timeout: timeout), limit: nil,
                                                             maxLiveSessionsPerViewer: 10, now: t0.addingTimeInterval(seconds))
                else { Issue.record("\(id) not started"); return }
            }
            try start("other-1", viewer: "v2", at: 0)
            _ = try store.endSession(idHash: "other-1", viewer: "v2", now: t0)
            // s1, s3 and s4 are ended at 1, 3 and 4 s; s2 is never ended but expires at 2.5 s.
            try start("s1", at: 0)
            _ = try store.endSession(idHash: "s1", viewer: "v1", now: t0.addingTimeInterval(1))
            try start("s2", at: 1.5, timeout: 1)
            try start("s3", at: 2)
            _ = try store.endSession(idHash: "s3", viewer: "v1", now: t0.addingTimeInterval(3))
            try start("s4", at: 3)
            _ = try store.endSession(idHash: "s4", viewer: "v1", now: t0.addingTimeInterval(4))
            // Four ended (s1 at 1, s2 at 2.5, s3 at 3, s4 at 4): this start keeps the newest two.
            try start("s5", at: 5)
            #expect(try store.session(idHash: "s1") == nil)
            #expect(try store.session(idHash: "s2") == nil)
            #expect(try store.session(idHash: "s3")?.ended == t0.addingTimeInterval(3))
            #expect(try store.session(idHash: "s4")?.ended == t0.addingTimeInterval(4))
            #expect(try store.session(idHash: "s5")?.isLive(at: t0.addingTimeInterval(5)) == true)
            #expect(try store.session(idHash: "other-1") != nil, "another viewer's ended session stays")
            // A start refused by a limit adds nothing and drops nothing.
            _ = try store.endSession(idHash: "s5", viewer: "v1", now: t0.addingTimeInterval(6))
            #expect(try store.startSession(.test("s6"), limit: nil, maxLiveSessionsPerViewer: 0,
                                           now: t0.addingTimeInterval(7)) == .tooManySessions)
            #expect(try store.session(idHash: "s3") != nil)
            try start("s7", at: 8)
            #expect(try store.session(idHash: "s3") == nil)
            #expect(try store.session(idHash: "s4") != nil && store.session(idHash: "s5") != nil)
        }
    }

    /// At the bound of sessions in all, a start drops the oldest ended session of anyone to
    /// make room; when every stored session is live it is refused, and nothing is dropped.
    @Test(arguments: MediaStoreKind.allCases) func aFullStoreDropsOnlyEndedSessionsAndRefusesWhenAllAreLive(_ kind: MediaStoreKind) throws {
        try kind.withStores(bounds: RecordBounds(endedPerViewer: 100, total: 3)) { store, another in
            func start(_ id: String, viewer: String, at seconds: TimeInterval = 0, timeout: TimeInterval = 180) throws -> SessionStartOutcome {
                try store.startSession(.test(id, viewer: viewer, timeout: timeout), limit: nil, maxLiveSessionsPerViewer: 10,
                                       now: t0.addingTimeInterval(seconds))
            }
            func isStarted(_ outcome: SessionStartOutcome) -> Bool { if case .started = outcome { true } else { false } }
            #expect(isStarted(try start("a", viewer: "v1")))
            #expect(isStarted(try start("b", viewer: "v2")))
            #expect(isStarted(try start("c", viewer: "v3", timeout: 10)))
            _ = try store.endSession(idHash: "b", viewer: "v2", now: t0.addingTimeInterval(20))
            // Full: c expired at 10 s, before b ended at 20 s, so c goes first, then b.
            #expect(isStarted(try start("d", viewer: "v4", at: 30)))
            #expect(try store.session(idHash: "c") == nil)
            #expect(try store.session(idHash: "b") != nil)
            #expect(isStarted(try start("e", viewer: "v5", at: 31)))
            #expect(try store.session(idHash: "b") == nil)
            // a, d and e are live: many viewers cannot evict them, a sixth start is refused.
            #expect(try start("f", viewer: "v6", at: 32) == .storeFull)
            #expect(try another().startSession(.test("f", viewer: "v6"), limit: nil, maxLiveSessionsPerViewer: 10,
                                               now: t0.addingTimeInterval(33)) == .storeFull)
            #expect(try store.session(idHash: "f") == nil)
            #expect(try store.liveSessionCount(now: t0.addingTimeInterval(33)) == 3)
            for id in ["a", "d", "e"] { #expect(try store.session(idHash: id)?.isLive(at: t0.addingTimeInterval(33)) == true) }
            // Once one has ended, there is room again.
            _ = try store.endSession(idHash: "d", viewer: "v4", now: t0.addingTimeInterval(40))
            #expect(isStarted(try start("f", viewer: "v6", at: 41)))
            #expect(try store.session(idHash: "d") == nil)
        }
    }
}
