import Dispatch
import Foundation
import Synchronization
import Testing
@testable import KAS

@Suite struct SQLiteMediaStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func session(_ id: String, viewer: String = "v1", asset: String = "a1", playback: String? = nil,
                         timeout: TimeInterval = 180) -> NewMediaSession {
        NewMediaSession(idHash: id, viewer: viewer, asset: asset, protocol: .tdf, playback: playback ?? "p-\(id)",
                        timeout: timeout)
    }

    private func withStore(_ body: (SQLiteMediaStore, String) throws -> Void) throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("media.sqlite").path
        try body(try SQLiteMediaStore(path: path), path)
    }

    @Test func migratesToTheCurrentVersionAndRefusesANewerSchema() throws {
        try withStore { store, path in
            #expect(try store.storedSchemaVersion() == SQLiteMediaStore.schemaVersion)
            #expect(try SQLiteMediaStore(path: path).storedSchemaVersion() == SQLiteMediaStore.schemaVersion)
            let raw = try SQLiteDatabase(path: path)
            #expect(try raw.query("SELECT COUNT(*) FROM schema_version") == [[.integer(1)]])
            _ = try raw.query("UPDATE schema_version SET version = 99")
            #expect(throws: StoreError(.open, "")) { _ = try SQLiteMediaStore(path: path) }
        }
    }

    @Test func sessionLifecycleWithHeartbeatExpiry() throws {
        try withStore { store, _ in
            guard case .started(let record, _) = try store.startSession(session("s1"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
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
            _ = try store.startSession(session("s2"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            #expect(try store.endSession(idHash: "s2", viewer: "v2", now: t0) == false)
            #expect(try store.endSession(idHash: "s2", viewer: "v1", now: t0) == true)
            #expect(try store.endSession(idHash: "s2", viewer: "v1", now: t0) == false)
            #expect(try store.session(idHash: "s2")?.ended != nil)
        }
    }

    /// Issue 21: a playback holds one live session per component. A session naming its
    /// component at start replaces the live one; one bound at its first key request replaces
    /// the one that held the component; other components and playbacks are untouched.
    @Test func aPlaybackHoldsOneLiveSessionPerComponent() throws {
        try withStore { store, _ in
            func start(_ id: String, component: String?, playback: String = "shared") throws -> SessionStartOutcome {
                var new = session(id, playback: playback)
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

    @Test func concurrencyCountsPlaybacksAndFreesSlots() throws {
        try withStore { store, _ in
            // Two playbacks, each a video and an audio session, fit a limit of 2.
            for (id, playback) in [("v-a", "one"), ("a-a", "one"), ("v-b", "two"), ("a-b", "two")] {
                let outcome = try store.startSession(session(id, playback: playback), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                guard case .started = outcome else { Issue.record("\(id) refused"); return }
            }
            #expect(try store.startSession(session("v-c", playback: "three"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            // Another viewer and another asset are counted apart.
            guard case .started = try store.startSession(session("x", viewer: "v2", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0),
                  case .started = try store.startSession(session("y", asset: "a2", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("independent session refused"); return }
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "one", now: t0) == 0)
            #expect(try store.playbackRank(viewer: "v1", asset: "a1", playback: "two", now: t0) == 1)
            // Ending both sessions of playback one frees its slot.
            _ = try store.endSession(idHash: "v-a", viewer: "v1", now: t0)
            #expect(try store.startSession(session("v-c", playback: "three"), limit: 2, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            _ = try store.endSession(idHash: "a-a", viewer: "v1", now: t0)
            guard case .started = try store.startSession(session("v-c", playback: "three"), limit: 2,
                                                         maxLiveSessionsPerViewer: 10, now: t0)
            else { Issue.record("freed slot not reusable"); return }
            // Expiry frees slots too.
            #expect(try store.startSession(session("v-d", playback: "four"), limit: 2, maxLiveSessionsPerViewer: 10,
                                           now: t0.addingTimeInterval(181)) != .concurrencyLimit)
            // The per-viewer cap over all assets.
            #expect(try store.startSession(session("z", asset: "a3"), limit: nil, maxLiveSessionsPerViewer: 1,
                                           now: t0.addingTimeInterval(181)) == .tooManySessions)
        }
    }

    @Test func twentyParallelStartsWithALimitOfTwoAdmitExactlyTwo() throws {
        try withStore { store, path in
            // Two connections (as two server processes would have) racing on the same file.
            let second = try SQLiteMediaStore(path: path)
            let started = Atomic<Int>(0)
            let limited = Atomic<Int>(0)
            let failed = Atomic<Int>(0)
            let now = t0
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                let target: SQLiteMediaStore = index % 2 == 0 ? store : second
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

    @Test func firstPlayIsRecordedOnceAndLimitsAreKept() throws {
        try withStore { store, _ in
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

    @Test func rateBucketRefillsContinuously() throws {
        try withStore { store, _ in
            for _ in 0..<60 { #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0) == .allowed) }
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0) == .limited(retryAfter: 1))
            #expect(try store.consumeRateToken(key: "other", perMinute: 60, now: t0) == .allowed)
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0.addingTimeInterval(1)) == .allowed)
            #expect(try store.consumeRateToken(key: "k", perMinute: 60, now: t0.addingTimeInterval(1)) == .limited(retryAfter: 1))
            for _ in 0..<2 { _ = try store.consumeRateToken(key: "slow", perMinute: 2, now: t0) }
            #expect(try store.consumeRateToken(key: "slow", perMinute: 2, now: t0) == .limited(retryAfter: 30))
        }
    }

    @Test func everythingSurvivesReopening() throws {
        try withStore { store, path in
            _ = try store.startSession(session("keep", playback: "pb"), limit: 1, maxLiveSessionsPerViewer: 10, now: t0)
            try store.recordFirstPlay(viewer: "v1", asset: "a1", at: t0)
            try store.setAssetStreamLimit(asset: "a1", limit: 1, now: t0)
            for _ in 0..<5 { _ = try store.consumeRateToken(key: "k", perMinute: 5, now: t0) }
            // A second connection sees every commit while the first is still open...
            let other = try SQLiteMediaStore(path: path)
            #expect(try other.session(idHash: "keep")?.playback == "pb")
            #expect(try other.startSession(session("more", playback: "pb2"), limit: 1, maxLiveSessionsPerViewer: 10, now: t0)
                    == .concurrencyLimit)
            #expect(try other.firstPlay(viewer: "v1", asset: "a1") == t0)
            #expect(try other.assetStreamLimit(asset: "a1") == 1)
            #expect(try other.consumeRateToken(key: "k", perMinute: 5, now: t0) == .limited(retryAfter: 12))
        }
    }

    @Test func pruneDropsOnlyStaleRows() throws {
        try withStore { store, _ in
            _ = try store.startSession(session("old"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
            _ = try store.startSession(session("new"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0.addingTimeInterval(1000))
            try store.prune(olderThan: t0.addingTimeInterval(500), now: t0.addingTimeInterval(1000))
            #expect(try store.session(idHash: "old") == nil)
            #expect(try store.session(idHash: "new") != nil)
        }
    }
}

/// Durability across `kill -9`: a child process (this test binary, running the writer test
/// below) commits sessions and first plays and reports each commit on stdout; the parent kills it
/// with SIGKILL mid-run and finds every reported commit in the file.
@Suite struct MediaStoreCrashTests {
    static let childVariable = "KAS_MEDIA_CRASH_CHILD_DB"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[MediaStoreCrashTests.childVariable] != nil))
    func crashChildWriter() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let store = try SQLiteMediaStore(path: path)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        var index = 0
        while true {
            _ = try store.startSession(NewMediaSession(idHash: "crash-\(index)", viewer: "v", asset: "a", protocol: .fairplay,
                                                       playback: "p\(index)", timeout: 1e9),
                                       limit: nil, maxLiveSessionsPerViewer: Int.max, now: t0)
            try store.recordFirstPlay(viewer: "v", asset: "a\(index)", at: t0)
            FileHandle.standardOutput.write(Data("committed \(index)\n".utf8))
            index += 1
        }
    }

    @Test func committedRowsSurviveSIGKILL() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("media.sqlite").path
        let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--testing-library", "swift-testing", "--filter", "crashChildWriter"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        var lastCommitted = -1
        let deadline = Date().addingTimeInterval(60)
        while lastCommitted < 200, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            let complete = text.split(separator: "\n", omittingEmptySubsequences: true).filter { $0.hasPrefix("committed ") }
            if let last = complete.last, text.hasSuffix("\n") || complete.count > 1 {
                let line = text.hasSuffix("\n") ? last : complete[complete.count - 2]
                lastCommitted = Int(line.dropFirst("committed ".count)) ?? lastCommitted
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        try #require(lastCommitted >= 200, "the child reported \(lastCommitted + 1) commits")
        let store = try SQLiteMediaStore(path: path)
        for index in 0...lastCommitted {
            #expect(try store.session(idHash: "crash-\(index)") != nil)
            #expect(try store.firstPlay(viewer: "v", asset: "a\(index)") != nil)
        }
    }
}
