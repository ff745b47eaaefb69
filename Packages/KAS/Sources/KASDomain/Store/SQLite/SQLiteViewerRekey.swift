import Foundation

/// `kas store rekey` on one SQLite file (`StoreRekey`): every per-viewer column rewritten
/// through a temporary table of old and new keys, and the file marked issuer-scoped
/// (`ViewerKeyScheme`), in one transaction: it rekeys all or nothing.
enum SQLiteViewerRekey {
    /// A column holding viewer keys: the key itself, or a rate bucket `<kind>:<key>`.
    struct Column: Sendable {
        var table: String
        var column: String
        var rateBucket = false
    }

    /// The media store's: sessions, first plays, rate buckets (in this order in `Outcome`).
    static let mediaStore = [
        Column(table: "media_sessions", column: "viewer"),
        Column(table: "media_first_plays", column: "viewer"),
        Column(table: "media_rate_buckets", column: "key", rateBucket: true),
    ]
    /// The offline store's: licences.
    static let offlineStore = [Column(table: "offline_licenses", column: "viewer")]

    enum Outcome: Equatable {
        /// The rows rewritten, per column in the order given.
        case rekeyed([Int])
        /// The file keys by issuer and subject already; the issuer it was rekeyed to, if it was.
        case already(rekeyedIssuer: String?)
    }

    /// Rekeys the file at `path` (already at the current schema) to `issuer`.
    static func run(path: String, _ columns: [Column], issuer: String, now: Date) throws(StoreError) -> Outcome {
        let database = try SQLiteDatabase(path: path)
        defer { database.checkpointAndClose() }
        return try database.transaction { () throws(StoreError) -> Outcome in
            let stored = try ViewerKeyScheme.stored(in: database)
            guard stored.scheme == .subjectOnly else { return .already(rekeyedIssuer: stored.rekeyedIssuer) }
            // A temporary table ends with the connection; one UPDATE per column then finds each
            // row's new key by primary key, where one UPDATE per viewer would scan per viewer.
            try database.execute("CREATE TEMP TABLE viewer_rekey (old TEXT PRIMARY KEY NOT NULL, new TEXT NOT NULL)")
            var rows: [Int] = []
            for target in columns {
                try database.execute("DELETE FROM temp.viewer_rekey")
                for row in try database.query("SELECT DISTINCT \(target.column) FROM \(target.table)") {
                    guard case .text(let old)? = row.first,
                          let new = StoreRekey.rekeyed(old, issuer: issuer, rateBucket: target.rateBucket) else { continue }
                    _ = try database.query("INSERT INTO temp.viewer_rekey (old, new) VALUES (?, ?)", [.text(old), .text(new)])
                }
                _ = try database.query("""
                    UPDATE \(target.table) SET \(target.column) =
                        (SELECT new FROM temp.viewer_rekey WHERE old = \(target.table).\(target.column))
                    WHERE \(target.column) IN (SELECT old FROM temp.viewer_rekey)
                    """)
                rows.append(database.changes)
            }
            _ = try database.query("UPDATE viewer_keys SET scheme = ?, rekeyed_issuer = ?, rekeyed_ms = ?",
                                   [.text(ViewerKeyScheme.issuerAndSubject.rawValue), .text(issuer),
                                    .integer(MediaStoreTime.ms(now))])
            return .rekeyed(rows)
        }
    }
}
