import CSQLite
import Foundation

/// Failures of a state store (SQLite or Redis), compared by code. Reasons name the operation,
/// never the data. `.unavailable` is a store that cannot be reached or answered wrongly (Redis
/// down, timed out, refused the credentials): the KAS answers 503 `state store unavailable`.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable { case open, prepare, step, bind, constraint, closed, unavailable }
    public let code: Code
    public let reason: String
    public init(_ code: Code, _ reason: String) { self.code = code; self.reason = reason }
    public var description: String { "store error (\(code.rawValue)): \(reason)" }
    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
}

/// One SQLite connection in WAL mode. A connection is used by one owner at a time (an actor or a
/// single thread); SQLite's shared FULLMUTEX connection is not transaction-safe across threads.
package final class SQLiteDatabase {
    /// The connection, for `SQLiteDatabase+Backup` (SQLite's online backup API takes both ends).
    private(set) var handle: OpaquePointer?

    /// Opens `path`; `wal` false leaves the rollback journal (a backup copy stays one file,
    /// without `-wal` and `-shm` beside it).
    public init(path: String, wal: Bool = true) throws(StoreError) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            throw StoreError(.open, "cannot open the database file")
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
        if wal { try execute("PRAGMA journal_mode=WAL") }
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit { close() }

    /// Finalizes the prepared statements and closes the connection; every later call throws
    /// `.closed`. Closing the last connection checkpoints the WAL into the database file.
    public func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    public var isClosed: Bool { handle == nil }

    /// Runs statements that return no rows of interest.
    public func execute(_ sql: String) throws(StoreError) {
        guard handle != nil else { throw StoreError(.closed, "the database is closed") }
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw StoreError(.step, "statement failed")
        }
    }

    /// Runs one statement with positional text/integer parameters and returns its rows.
    /// Statements are prepared once per SQL text and reused (reset and unbound after each run),
    /// so the hot paths of the media store do not re-parse their SQL on every request.
    public func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws(StoreError) -> [[SQLiteValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in parameters.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, position)
            case .integer(let v): rc = sqlite3_bind_int64(statement, position, v)
            case .text(let v): rc = sqlite3_bind_text(statement, position, v, -1, mediadrm_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw StoreError(.bind, "cannot bind parameter \(index + 1)") }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            if rc == SQLITE_CONSTRAINT || (rc & 0xff) == SQLITE_CONSTRAINT {
                throw StoreError(.constraint, "constraint violated")
            }
            guard rc == SQLITE_ROW else { throw StoreError(.step, "statement failed") }
            var row: [SQLiteValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL: row.append(.null)
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                default:
                    if let text = sqlite3_column_text(statement, column) {
                        row.append(.text(String(cString: text)))
                    } else {
                        row.append(.null)
                    }
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`: the write lock is taken at BEGIN, so a
    /// read-check-write sequence (count live sessions, then insert) cannot interleave with another
    /// writer, in this process or another one on the same file. Any error rolls back.
    public func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        // Prepared once like every other statement: sqlite3_exec re-parsed both on each of the
        // rate-limit transactions every key request makes.
        _ = try query("BEGIN IMMEDIATE")
        do {
            let result = try body()
            _ = try query("COMMIT")
            return result
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Brings the schema recorded in `versionTable` (one row, one integer) to `migrations.count`
    /// in one transaction: `migrations[i]` moves version i to i+1. A version above the code's is
    /// refused rather than used with a schema this code does not know.
    public func migrate(versionTable: String, migrations: [[String]]) throws(StoreError) {
        try transaction { () throws(StoreError) -> Void in
            try execute("CREATE TABLE IF NOT EXISTS \(versionTable) (version INTEGER NOT NULL)")
            let rows = try query("SELECT version FROM \(versionTable)")
            var version = 0
            if case .integer(let value)? = rows.first?.first { version = Int(value) }
            if rows.isEmpty { _ = try query("INSERT INTO \(versionTable) (version) VALUES (0)") }
            guard version <= migrations.count else {
                throw StoreError(.open, "the database schema (\(versionTable)) is newer than this server")
            }
            for step in migrations[version...] {
                for sql in step { try execute(sql) }
            }
            _ = try query("UPDATE \(versionTable) SET version = ?", [.integer(Int64(migrations.count))])
        }
    }

    private var statements: [String: OpaquePointer] = [:]

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        guard handle != nil else { throw StoreError(.closed, "the database is closed") }
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw StoreError(.prepare, "cannot prepare statement")
        }
        statements[sql] = statement
        return statement
    }
}

package enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)
}
