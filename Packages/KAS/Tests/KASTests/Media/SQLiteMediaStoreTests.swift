import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

/// What only the SQLite store has: its schema version. The behaviour every media store shares is
/// `MediaStoreConformanceTests`.
@Suite struct SQLiteMediaStoreTests {
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

    /// A file of the first schema gains the record bounds' count with the sessions it holds:
    /// they count against the bound from the first start on.
    @Test func sessionsStoredBeforeTheBoundsCountAgainstThem() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("media.sqlite").path
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let old = try SQLiteDatabase(path: path)
        try old.migrate(Array(SQLiteMediaStore.migrations.prefix(1)), newerSchema: "newer")
        for id in ["x", "y"] {
            _ = try old.query(
                """
                INSERT INTO media_sessions (id_hash, viewer, asset, protocol, playback, created_ms, heartbeat_ms, expires_ms)
                VALUES (?, 'v1', 'a1', 'tdf', ?, 0, 0, ?)
                """, [.text(id), .text("p-" + id), .integer(MediaStoreTime.ms(t0) + 180_000)])
        }
        old.close()
        let store = try SQLiteMediaStore(path: path, bounds: RecordBounds(endedPerViewer: 10, total: 2))
        #expect(try store.storedSchemaVersion() == SQLiteMediaStore.schemaVersion)
        #expect(try store.startSession(.test("z", viewer: "v2"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0) == .storeFull)
        _ = try store.endSession(idHash: "x", viewer: "v1", now: t0)
        guard case .started = try store.startSession(.test("z", viewer: "v2"), limit: nil, maxLiveSessionsPerViewer: 10, now: t0)
        else { Issue.record("no room made from the ended session"); return }
        #expect(try store.session(idHash: "x") == nil)
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
