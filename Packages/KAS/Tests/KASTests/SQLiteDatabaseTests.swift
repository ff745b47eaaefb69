import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

@Suite struct SQLiteDatabaseTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("kas-store-\(UUID().uuidString).sqlite").path
    }

    @Test func opensInWALModeAndKeepsRowsAcrossConnections() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let db = try SQLiteDatabase(path: path)
            #expect(try db.query("PRAGMA journal_mode") == [[.text("wal")]])
            try db.execute("CREATE TABLE plays (asset TEXT PRIMARY KEY, first_play INTEGER NOT NULL)")
            _ = try db.query("INSERT INTO plays VALUES (?, ?)", [.text("asset-1"), .integer(1_700_000_000)])
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.query("SELECT asset, first_play FROM plays") == [[.text("asset-1"), .integer(1_700_000_000)]])
    }

    @Test func constraintViolationsAreTypedErrors() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        _ = try db.query("INSERT INTO t VALUES (?)", [.text("a")])
        #expect(throws: StoreError(.constraint, "")) {
            _ = try db.query("INSERT INTO t VALUES (?)", [.text("a")])
        }
    }
}
