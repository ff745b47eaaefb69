/// The schema steps and shutdown every store on `SQLiteDatabase` shares.
extension SQLiteDatabase {
    /// Brings the file to `migrations.count` in one transaction: `migrations[i]` moves version i
    /// to i+1, recorded in `schema_version`. A file written by a newer version of the code is
    /// refused (`StoreError.open` with `newerSchema`) rather than used with a schema this code
    /// does not know.
    func migrate(_ migrations: [[String]], newerSchema: String) throws(StoreError) {
        try transaction { () throws(StoreError) -> Void in
            try execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            let rows = try query("SELECT version FROM schema_version")
            var version = 0
            if case .integer(let v)? = rows.first?.first { version = Int(v) }
            if rows.isEmpty { _ = try query("INSERT INTO schema_version (version) VALUES (0)") }
            guard version <= migrations.count else { throw StoreError(.open, newerSchema) }
            for step in migrations[version...] {
                for sql in step { try execute(sql) }
            }
            _ = try query("UPDATE schema_version SET version = ?", [.integer(Int64(migrations.count))])
        }
    }

    /// Checkpoints the WAL into the file and closes; a closed database is left alone.
    func checkpointAndClose() {
        guard !isClosed else { return }
        try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
        close()
    }
}
