import CSQLite

/// A consistent copy of a live database through SQLite's online backup API, for `kas store
/// backup` (`StoreBackup`).
extension SQLiteDatabase {
    /// Copies every page of `source` into this (fresh, rollback-journal) database, then leaves
    /// this file in rollback-journal mode so the copy is one self-contained file.
    ///
    /// One `sqlite3_backup_step(-1)` copies all pages inside one read transaction of `source`:
    /// the copy is the database as of that transaction's start. In WAL mode a reader blocks no
    /// writer, so a `kas serve` on the same file keeps committing meanwhile. Stepping in chunks
    /// instead would restart the copy on every commit from another connection, and on a busy
    /// server might never finish.
    func copy(from source: SQLiteDatabase) throws(StoreError) {
        guard let destination = handle, let origin = source.handle else {
            throw StoreError(.closed, "the database is closed")
        }
        guard let backup = sqlite3_backup_init(destination, "main", origin, "main") else {
            throw StoreError(.step, "cannot start the online backup")
        }
        var rc: Int32
        var retries = 0
        repeat {
            rc = sqlite3_backup_step(backup, -1)
            // BUSY/LOCKED after the source's busy timeout: another connection held a lock the
            // read needs (a checkpoint, a recovery); step again a bounded number of times, so a
            // store that stays locked fails the backup instead of hanging it.
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                retries += 1
                sqlite3_sleep(100)
            }
        } while rc == SQLITE_OK || ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && retries < 20)
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE, finished == SQLITE_OK else {
            throw StoreError(.step, "the online backup failed (SQLite result \(rc == SQLITE_DONE ? finished : rc))")
        }
        // The copied header says WAL, as the source's does; rollback mode again keeps the copy a
        // single file (the restored file is put back in WAL mode when `kas serve` opens it).
        try execute("PRAGMA journal_mode=DELETE")
    }

    /// The version recorded in `table` (one row, one integer); nil when the table does not exist
    /// (a store the server never opened, or a part of it never created).
    func schemaVersion(table: String) throws(StoreError) -> Int? {
        let exists = try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
        guard !exists.isEmpty else { return nil }
        guard case .integer(let version)? = try query("SELECT version FROM \(table)").first?.first else { return 0 }
        return Int(version)
    }
}
