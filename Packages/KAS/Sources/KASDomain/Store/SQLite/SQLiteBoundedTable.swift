import Foundation

/// `RecordBounds` on one SQLite table of records that end: media sessions (`ended_ms`) and
/// playbacks (`released_ms`). Each such table has `id_hash` (its key), `viewer` and
/// `expires_ms`; a record has ended once `ended` is set or `expires_ms <= now`. Every call runs
/// inside the caller's transaction, on its connection.
///
/// The same rule, in the same order (the time a record ended, then its id), as the Redis
/// stores' `drop_ended` and `make_room` (`RedisMediaStore.Scripts.prelude`), so both backends
/// drop the same records.
struct SQLiteBoundedTable: Sendable {
    let table: String
    /// The column set when a record ends before its expiry (ended, released).
    let ended: String

    /// The schema the bounds need, for one migration step of the table's owner: an index of a
    /// viewer's records, the oldest ended and the oldest unended records in the order they are
    /// dropped, and the record count kept by triggers (`COUNT(*)` would read the whole table at
    /// every start). Part of the schema's history once released: change it by a new step.
    var schema: [String] {
        [
            "CREATE INDEX \(table)_by_viewer ON \(table) (viewer)",
            "CREATE INDEX \(table)_ended ON \(table) (\(ended), id_hash) WHERE \(ended) IS NOT NULL",
            "CREATE INDEX \(table)_unended ON \(table) (expires_ms, id_hash) WHERE \(ended) IS NULL",
            "CREATE TABLE \(counter) (total INTEGER NOT NULL)",
            "INSERT INTO \(counter) (total) SELECT COUNT(*) FROM \(table)",
            "CREATE TRIGGER \(table)_counted_insert AFTER INSERT ON \(table) BEGIN UPDATE \(counter) SET total = total + 1; END",
            "CREATE TRIGGER \(table)_counted_delete AFTER DELETE ON \(table) BEGIN UPDATE \(counter) SET total = total - 1; END",
        ]
    }

    private var counter: String { table + "_count" }

    /// Records in the table, live or ended.
    func count(in database: SQLiteDatabase) throws(StoreError) -> Int {
        SQLiteMediaStore.int(try database.query("SELECT total FROM \(counter)").first?.first)
    }

    /// The viewer's records that are live at `nowMs`.
    func liveCount(of viewer: String, nowMs: Int64, in database: SQLiteDatabase) throws(StoreError) -> Int {
        SQLiteMediaStore.int(try database.query(
            "SELECT COUNT(*) FROM \(table) WHERE viewer = ? AND \(ended) IS NULL AND expires_ms > ?",
            [.text(viewer), .integer(nowMs)]).first?.first)
    }

    /// Drops the viewer's oldest ended records while more than `keeping` have ended (at most
    /// `RecordBounds.dropBatch`).
    func dropEnded(of viewer: String, keeping: Int, nowMs: Int64, in database: SQLiteDatabase) throws(StoreError) {
        let rows = try database.query(
            """
            SELECT id_hash, COALESCE(\(ended), expires_ms) FROM \(table)
            WHERE viewer = ? AND (\(ended) IS NOT NULL OR expires_ms <= ?)
            """,
            [.text(viewer), .integer(nowMs)])
        let excess = min(rows.count - keeping, RecordBounds.dropBatch)
        guard excess > 0 else { return }
        try delete(Self.oldestFirst(rows).prefix(excess), in: database)
    }

    /// Makes room for one more record under `bound`: drops the oldest ended records of any
    /// viewer (at most `RecordBounds.dropBatch`); false when the table still holds `bound`
    /// records, every one of them live.
    func makeRoom(bound: Int, nowMs: Int64, in database: SQLiteDatabase) throws(StoreError) -> Bool {
        let total = try count(in: database)
        guard total >= bound else { return true }
        let needed = min(total - bound + 1, RecordBounds.dropBatch)
        let ended = try database.query(
            "SELECT id_hash, \(ended) FROM \(table) WHERE \(ended) IS NOT NULL ORDER BY \(ended), id_hash LIMIT ?",
            [.integer(Int64(needed))])
        let expired = try database.query(
            """
            SELECT id_hash, expires_ms FROM \(table) WHERE \(self.ended) IS NULL AND expires_ms <= ?
            ORDER BY expires_ms, id_hash LIMIT ?
            """,
            [.integer(nowMs), .integer(Int64(needed))])
        let dropped = Self.oldestFirst(ended + expired).prefix(needed)
        try delete(dropped, in: database)
        return total - dropped.count < bound
    }

    private func delete(_ ids: ArraySlice<String>, in database: SQLiteDatabase) throws(StoreError) {
        for id in ids {
            _ = try database.query("DELETE FROM \(table) WHERE id_hash = ?", [.text(id)])
        }
    }

    /// The ids of `(id_hash, ended time)` rows, oldest first, ties by the id's bytes (SQLite's
    /// BINARY order, and Redis's for sorted-set members).
    private static func oldestFirst(_ rows: [[SQLiteValue]]) -> [String] {
        rows.compactMap { row -> (String, Int64)? in
            guard row.count == 2, case .text(let id) = row[0], case .integer(let time) = row[1] else { return nil }
            return (id, time)
        }
        .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        .map(\.0)
    }
}
