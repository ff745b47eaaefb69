import Dispatch
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Synchronization
import Testing

/// What the Redis media store adds to the shared behaviour (`MediaStoreConformanceTests`, which
/// also races 20 starts across two clients): state shared by clients as nodes share it, data
/// kept across a Redis restart, failures as `StoreError.unavailable`, bounded pruning, and the
/// migration from SQLite.
@Suite(.sharedRedis) struct RedisMediaStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Two stores on one prefix of the suite's server, each with its own client (two nodes).
    private func withTwoNodes(_ body: (RedisMediaStore, RedisMediaStore) throws -> Void) throws {
        let redis = try SharedTestRedis.current()
        let prefix = SharedTestRedis.prefix()
        let first = RedisClient(url: redis.url, poolSize: 4)
        let second = RedisClient(url: redis.url, poolSize: 4)
        defer {
            first.close()
            second.close()
        }
        try body(RedisMediaStore(client: first, keyPrefix: prefix), RedisMediaStore(client: second, keyPrefix: prefix))
    }

    @Test func aRateBucketIsSharedByEveryNode() throws {
        try withTwoNodes { nodeA, nodeB throws in
            for index in 0..<60 {
                let node = index % 2 == 0 ? nodeA : nodeB
                #expect(try node.consumeRateToken(key: "viewer", perMinute: 60, now: t0) == .allowed)
            }
            #expect(try nodeA.consumeRateToken(key: "viewer", perMinute: 60, now: t0) == .limited(retryAfter: 1))
            #expect(try nodeB.consumeRateToken(key: "viewer", perMinute: 60, now: t0) == .limited(retryAfter: 1))
            #expect(try nodeB.consumeRateToken(key: "viewer", perMinute: 60, now: t0.addingTimeInterval(1)) == .allowed)
            #expect(try nodeA.consumeRateToken(key: "viewer", perMinute: 60, now: t0.addingTimeInterval(1)) == .limited(retryAfter: 1))
        }
    }

    @Test func aSessionStartedOnOneNodeHeartbeatsAndEndsOnAnother() throws {
        try withTwoNodes { nodeA, nodeB throws in
            guard case .started = try nodeA.startSession(.test("s", playback: "pb"), limit: 1, maxLiveSessionsPerViewer: 5, now: t0)
            else { Issue.record("not started"); return }
            #expect(try nodeB.heartbeat(idHash: "s", viewer: "v1", now: t0.addingTimeInterval(100), timeout: 180)?.expires
                    == t0.addingTimeInterval(280))
            #expect(try nodeA.startSession(.test("t", playback: "other"), limit: 1, maxLiveSessionsPerViewer: 5,
                                           now: t0.addingTimeInterval(200)) == .concurrencyLimit)
            #expect(try nodeB.endSession(idHash: "s", viewer: "v1", now: t0.addingTimeInterval(200)) == true)
            #expect(try nodeA.session(idHash: "s")?.ended == t0.addingTimeInterval(200))
        }
    }

    /// `prune` deletes a bounded batch per call; the next calls take the rest, and live
    /// sessions and first plays stay.
    @Test func pruneIsBoundedPerCall() throws {
        try withTwoNodes { store, _ in
            let stale = RedisMediaStore.pruneBatch + 20
            for index in 0..<stale {
                _ = try store.startSession(.test("old-\(index)"), limit: nil, maxLiveSessionsPerViewer: .max, now: t0)
            }
            // Another viewer's: a start of v1's own would drop its expired sessions past its share.
            _ = try store.startSession(.test("new", viewer: "v2"), limit: nil, maxLiveSessionsPerViewer: .max,
                                       now: t0.addingTimeInterval(1000))
            try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0)
            func remaining() throws -> Int { try (0..<stale).filter { try store.session(idHash: "old-\($0)") != nil }.count }
            try store.prune(olderThan: t0.addingTimeInterval(500), now: t0.addingTimeInterval(1000))
            #expect(try remaining() == 20)
            try store.prune(olderThan: t0.addingTimeInterval(500), now: t0.addingTimeInterval(1000))
            #expect(try remaining() == 0)
            #expect(try store.session(idHash: "new")?.isLive(at: t0.addingTimeInterval(1000)) == true)
            #expect(try store.liveSessionCount(now: t0.addingTimeInterval(1000)) == 1)
            #expect(try store.firstPlay(viewer: "v1", asset: "a1") == t0)
        }
    }

    /// What `kas store migrate` does: every record read from SQLite answers the same from Redis,
    /// and importing twice changes nothing (an earlier first play already in Redis is kept).
    @Test func recordsExportedFromSQLiteAnswerTheSameFromRedis() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteMediaStore(path: directory.appendingPathComponent("media.sqlite").path)
        var video = NewMediaSession.test("v-one", playback: "one")
        video.component = "video"
        video.device = #"{"os":"tv"}"#
        _ = try sqlite.startSession(video, limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
        _ = try sqlite.startSession(.test("a-one", playback: "one"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
        _ = try sqlite.startSession(.test("two", playback: "two"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
        _ = try sqlite.startSession(.test("ended", playback: "three", timeout: 10), limit: nil, maxLiveSessionsPerViewer: 10,
                                    now: t0.addingTimeInterval(-100))
        _ = try sqlite.endSession(idHash: "ended", viewer: "v1", now: t0.addingTimeInterval(-95))
        _ = try sqlite.startSession(.test("expired", viewer: "v2", timeout: 10), limit: nil, maxLiveSessionsPerViewer: 10,
                                    now: t0.addingTimeInterval(-100))
        try sqlite.recordFirstPlay(viewer: "v1", asset: "a1", at: t0.addingTimeInterval(-50))
        try sqlite.recordFirstPlay(viewer: "v2", asset: "a1", at: t0.addingTimeInterval(-40))
        try sqlite.setAssetStreamLimit(asset: "a1", limit: 2, now: t0)
        try sqlite.setAssetStreamLimit(asset: "a2", limit: nil, now: t0)
        let records = try sqlite.exportRecords()
        #expect(records.sessions.map(\.idHash) == ["v-one", "a-one", "two", "ended", "expired"])
        #expect(records.firstPlays.count == 2)
        #expect(records.streamLimits == [AssetStreamLimitRecord(asset: "a1", limit: 2, updated: t0),
                                         AssetStreamLimitRecord(asset: "a2", limit: nil, updated: t0)])

        try withTwoNodes { redis, _ in
            // An earlier first play already in Redis wins over the exported one.
            try redis.recordFirstPlay(viewer: "v2", asset: "a1", at: t0.addingTimeInterval(-45))
            try redis.importRecords(records)
            try redis.importRecords(records)
            for record in records.sessions {
                #expect(try redis.session(idHash: record.idHash) == record)
            }
            #expect(try redis.firstPlay(viewer: "v1", asset: "a1") == t0.addingTimeInterval(-50))
            #expect(try redis.firstPlay(viewer: "v2", asset: "a1") == t0.addingTimeInterval(-45))
            #expect(try redis.assetStreamLimit(asset: "a1") == 2)
            #expect(try redis.assetStreamLimit(asset: "a2") == nil)
            for store in [sqlite, redis] as [any MediaStore] {
                #expect(try store.liveSessionCount(now: t0) == 3)
                #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "one", now: t0) == 0)
                #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "two", now: t0) == 1)
                #expect(try store.startSession(.test("more", playback: "more"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                        == .concurrencyLimit)
                #expect(try store.heartbeat(idHash: "expired", viewer: "v2", now: t0, timeout: 180) == nil)
                var replacement = NewMediaSession.test("v-again", playback: "one")
                replacement.component = "video"
                #expect(try store.startSession(replacement, limit: 2, maxLiveSessionsPerViewer: 3, now: t0)
                        == .started(MediaSessionRecord(
                            idHash: "v-again", viewer: "v1", asset: "a1", component: "video", protocol: .tdf, playback: "one",
                            device: nil, created: t0, lastHeartbeat: t0, expires: t0.addingTimeInterval(180), ended: nil),
                                    replaced: 1))
            }
        }
    }

    /// With `appendfsync always`, what Redis acknowledged survives a `kill -9` of the server and
    /// its restart: first plays, sessions, stream limits. The client reconnects by itself, and
    /// the scripts (gone with the restart) are loaded again.
    @Test func acknowledgedWritesSurviveARedisCrash() throws {
        let redis = try TestRedis(appendFsyncAlways: true)
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 2)
        defer { client.close() }
        let store = RedisMediaStore(client: client)
        _ = try store.startSession(.test("kept", playback: "pb"), limit: 1, maxLiveSessionsPerViewer: 5, now: t0)
        #expect(try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0) == t0)
        try store.setAssetStreamLimit(asset: "a1", limit: 1, now: t0)
        redis.kill9()
        try redis.restart()
        #expect(try Self.eventually { try store.firstPlay(viewer: "v1", asset: "a1") } == t0)
        #expect(try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0.addingTimeInterval(60)) == t0)
        #expect(try store.session(idHash: "kept")?.playback == "pb")
        #expect(try store.assetStreamLimit(asset: "a1") == 1)
        #expect(try store.startSession(.test("more", playback: "other"), limit: 1, maxLiveSessionsPerViewer: 5, now: t0)
                == .concurrencyLimit)
    }

    /// With Redis down, every call of the store throws `StoreError.unavailable` (what the
    /// services answer 503 for), and no reason repeats an id or a viewer key it was given.
    @Test func everyCallThrowsUnavailableWhileRedisIsDown() throws {
        let redis = try TestRedis()
        let client = RedisClient(url: redis.url, poolSize: 2, timeout: 1)
        defer { client.close() }
        let store = RedisMediaStore(client: client)
        let secret = "secret-session-hash"
        _ = try store.startSession(.test(secret), limit: nil, maxLiveSessionsPerViewer: 5, now: t0)
        redis.stop()
        let calls: [(String, () throws(StoreError) -> Void)] = [
            ("startSession", { () throws(StoreError) in
                _ = try store.startSession(.test(secret + "2"), limit: 1, maxLiveSessionsPerViewer: 5, now: t0) }),
            ("session", { () throws(StoreError) in _ = try store.session(idHash: secret) }),
            ("heartbeat", { () throws(StoreError) in _ = try store.heartbeat(idHash: secret, viewer: "v1", now: t0, timeout: 10) }),
            ("endSession", { () throws(StoreError) in _ = try store.endSession(idHash: secret, viewer: "v1", now: t0) }),
            ("bindComponent", { () throws(StoreError) in _ = try store.bindComponent(idHash: secret, component: "video", now: t0) }),
            ("playbackRank", { () throws(StoreError) in
                _ = try store.playbackRank(viewer: "v1", asset: "a1", playback: "p", now: t0) }),
            ("liveSessionCount", { () throws(StoreError) in _ = try store.liveSessionCount(now: t0) }),
            ("endPlaybackSessions", { () throws(StoreError) in
                _ = try store.endPlaybackSessions(viewer: "v1", asset: "a1", playback: "p", now: t0) }),
            ("firstPlay", { () throws(StoreError) in _ = try store.firstPlay(viewer: "v1", asset: "a1") }),
            ("recordFirstPlay", { () throws(StoreError) in try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0) }),
            ("assetStreamLimit", { () throws(StoreError) in _ = try store.assetStreamLimit(asset: "a1") }),
            ("setAssetStreamLimit", { () throws(StoreError) in try store.setAssetStreamLimit(asset: "a1", limit: 2, now: t0) }),
            ("consumeRateToken", { () throws(StoreError) in _ = try store.consumeRateToken(key: "k", perMinute: 5, now: t0) }),
            ("prune", { () throws(StoreError) in try store.prune(olderThan: t0, now: t0) }),
            ("importRecords", { () throws(StoreError) in try store.importRecords(MediaStoreRecords(firstPlays: [
                FirstPlayRecord(viewer: "v1", asset: "a1", time: t0)])) }),
        ]
        for (name, call) in calls {
            do {
                try call()
                Issue.record("\(name) answered with Redis down")
            } catch {
                #expect(error.code == .unavailable, "\(name): \(error)")
                #expect(!error.reason.contains(secret) && !error.reason.contains("v1"), "\(name): \(error.reason)")
            }
        }
    }

    /// Through the media service: while Redis is down a session start is 503 `state store
    /// unavailable`, never a start it could not count, and once Redis is back the same service
    /// starts sessions again without a restart.
    @Test func theMediaServiceAnswers503WhileRedisIsDownAndRecovers() throws {
        let redis = try TestRedis(appendFsyncAlways: true)
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 2, timeout: 1)
        defer { client.close() }
        let harness = try MediaHarness(store: RedisMediaStore(client: client))
        let asset = UUID().uuidString.lowercased()
        let alice = try harness.viewer("alice@example.com")
        let (started, id) = try harness.startSession(token: alice, asset: asset)
        #expect(started.status == 200)
        let sessionID = try #require(id)
        // Everything Redis persisted (its append-only files) names neither the session id nor
        // the subject: a copy of Redis yields no usable session and no viewer.
        let persisted = try Self.filesBelow(redis.directory)
        #expect(persisted.count > 0 && persisted.contains { !$0.isEmpty })
        for data in persisted {
            #expect(data.range(of: Data(sessionID.utf8)) == nil && data.range(of: Data("alice@example.com".utf8)) == nil)
        }

        redis.stop()
        let refused = try harness.startSession(token: alice, asset: asset)
        #expect(refused.result.status == 503)
        #expect(refused.sessionId == nil)
        #expect(String(decoding: refused.result.body, as: UTF8.self).contains("state store unavailable"))
        #expect(try harness.post("/media/v1/session/\(sessionID)/heartbeat", token: alice, body: [:]).status == 503)

        try redis.restart()
        let deadline = Date().addingTimeInterval(30)
        var status = 0
        while status != 200, Date() < deadline {
            status = try harness.post("/media/v1/session/\(sessionID)/heartbeat", token: alice, body: [:]).status
            if status != 200 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(status == 200, "the service did not recover within 30 s of Redis's restart")
        #expect(try harness.startSession(token: alice, asset: asset).result.status == 200)
    }

    /// The contents of every regular file below `directory`.
    static func filesBelow(_ directory: String) throws -> [Data] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var contents: [Data] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                contents.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return contents
    }

    /// Retries `body` while it throws `.unavailable` (a client reconnecting after a restart),
    /// within a generous bound whose end is a failure.
    static func eventually<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                return try body()
            } catch let error as StoreError where error.code == .unavailable && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }
}
