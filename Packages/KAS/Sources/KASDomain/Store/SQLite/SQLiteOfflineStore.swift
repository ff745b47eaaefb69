import Foundation

/// The offline licences (`<dataDir>/offline.sqlite`, docs/offline.md), in a database of their own
/// so the media store's schema steps stay independent of this one. One connection under a lock,
/// every read-check-write in `BEGIN IMMEDIATE` (as `SQLiteMediaStore`): issuing and the device
/// count are one transaction, so parallel requests admit exactly `maxOfflineDevices` devices.
final class SQLiteOfflineStore: OfflineLicenseStore, @unchecked Sendable {
    /// `migrations[i]` moves version i to i+1.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE offline_licenses (
                id TEXT PRIMARY KEY NOT NULL,
                viewer TEXT NOT NULL,
                asset TEXT NOT NULL,
                play_key TEXT NOT NULL,
                device TEXT NOT NULL,
                device_name TEXT,
                signing_kid TEXT NOT NULL,
                issued_ms INTEGER NOT NULL,
                expires_ms INTEGER NOT NULL,
                rental_ends_ms INTEGER,
                rules TEXT NOT NULL,
                data_attributes TEXT NOT NULL,
                dissem TEXT NOT NULL,
                keys TEXT NOT NULL,
                released_ms INTEGER,
                first_played_ms INTEGER
            )
            """,
            "CREATE INDEX offline_licenses_viewer ON offline_licenses (viewer, asset, expires_ms) WHERE released_ms IS NULL",
            "CREATE INDEX offline_licenses_signer ON offline_licenses (signing_kid, expires_ms) WHERE released_ms IS NULL",
        ],
        // Version 2: viewers keyed by issuer and subject, as in the media store.
        ViewerKeyScheme.offlineStoreStep,
    ]

    let path: String
    private let lock = NSLock()
    let database: SQLiteDatabase

    init(path: String) throws(StoreError) {
        self.path = path
        database = try SQLiteDatabase(path: path)
        try database.migrate(Self.migrations, newerSchema: "the offline store schema is newer than this server")
    }

    func close() {
        lock.withLock { database.checkpointAndClose() }
    }

    private func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private static let columns = """
        id, viewer, asset, play_key, device, device_name, signing_kid, issued_ms, expires_ms, rental_ends_ms, \
        rules, data_attributes, dissem, keys, released_ms, first_played_ms
        """

    /// Stores `record` unless the viewer's live licences of the asset are on `maxDevices` other
    /// devices; a live licence of the same device and asset is released (replaced) by it.
    func issue(_ record: OfflineLicenseRecord, maxDevices: Int, now: Date) throws(StoreError) -> OfflineIssueOutcome {
        let nowMs = Self.ms(now)
        return try locked { () throws(StoreError) -> OfflineIssueOutcome in
            try database.transaction { () throws(StoreError) -> OfflineIssueOutcome in
                let others = try database.query(
                    """
                    SELECT COUNT(DISTINCT device) FROM offline_licenses
                    WHERE viewer = ? AND asset = ? AND released_ms IS NULL AND expires_ms > ? AND device <> ?
                    """, [.text(record.viewer), .text(record.asset), .integer(nowMs), .text(record.deviceThumbprint)])
                guard case .integer(let count)? = others.first?.first else { throw StoreError(.step, "device count missing") }
                if count >= Int64(maxDevices) { return .deviceLimit }
                _ = try database.query(
                    """
                    UPDATE offline_licenses SET released_ms = ?
                    WHERE viewer = ? AND asset = ? AND device = ? AND released_ms IS NULL AND expires_ms > ?
                    """, [.integer(nowMs), .text(record.viewer), .text(record.asset), .text(record.deviceThumbprint), .integer(nowMs)])
                let replaced = database.changes
                _ = try database.query(
                    "INSERT INTO offline_licenses (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Self.values(record))
                return .issued(replaced: replaced)
            }
        }
    }

    func license(id: String) throws(StoreError) -> OfflineLicenseRecord? {
        try locked { () throws(StoreError) -> OfflineLicenseRecord? in
            let rows = try database.query("SELECT \(Self.columns) FROM offline_licenses WHERE id = ?", [.text(id)])
            guard let row = rows.first else { return nil }
            return Self.record(row)
        }
    }

    /// Writes a renewal (new signing key, issue and expiry times) of a licence still live at `now`;
    /// false when it is not.
    func renew(_ record: OfflineLicenseRecord, now: Date) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            _ = try database.query(
                """
                UPDATE offline_licenses SET signing_kid = ?, issued_ms = ?, expires_ms = ?, rental_ends_ms = ?
                WHERE id = ? AND released_ms IS NULL AND expires_ms > ?
                """, [.text(record.signingKid), .integer(Self.ms(record.issued)), .integer(Self.ms(record.expires)),
                      record.rentalEnds.map { .integer(Self.ms($0)) } ?? .null, .text(record.id), .integer(Self.ms(now))])
            return database.changes == 1
        }
    }

    /// Releases a licence of `viewer` not yet released; false when there is none.
    func release(id: String, viewer: String, now: Date) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            _ = try database.query("UPDATE offline_licenses SET released_ms = ? WHERE id = ? AND viewer = ? AND released_ms IS NULL",
                                   [.integer(Self.ms(now)), .text(id), .text(viewer)])
            return database.changes == 1
        }
    }

    /// Keeps the earliest reported first offline play of a licence.
    func recordFirstPlay(id: String, at time: Date) throws(StoreError) {
        try locked { () throws(StoreError) -> Void in
            _ = try database.query(
                "UPDATE offline_licenses SET first_played_ms = MIN(COALESCE(first_played_ms, ?), ?) WHERE id = ?",
                [.integer(Self.ms(time)), .integer(Self.ms(time)), .text(id)])
        }
    }

    /// The kids that signed a licence not released and not expired at `now`: the retired signing
    /// keys that must stay published.
    func liveSigningKids(now: Date) throws(StoreError) -> Set<String> {
        try locked { () throws(StoreError) -> Set<String> in
            let rows = try database.query(
                "SELECT DISTINCT signing_kid FROM offline_licenses WHERE released_ms IS NULL AND expires_ms > ?",
                [.integer(Self.ms(now))])
            return Set(rows.compactMap { row in if case .text(let kid)? = row.first { kid } else { nil } })
        }
    }

    func allLicenses() throws(StoreError) -> [OfflineLicenseRecord] {
        try locked { () throws(StoreError) -> [OfflineLicenseRecord] in
            try database.query("SELECT \(Self.columns) FROM offline_licenses ORDER BY issued_ms, id").compactMap(Self.record)
        }
    }

    func importLicense(_ record: OfflineLicenseRecord) throws(StoreError) {
        try locked { () throws(StoreError) -> Void in
            _ = try database.query(
                "INSERT OR REPLACE INTO offline_licenses (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                Self.values(record))
        }
    }

    // MARK: Rows

    private static func values(_ r: OfflineLicenseRecord) -> [SQLiteValue] {
        [.text(r.id), .text(r.viewer), .text(r.asset), .text(r.playKey), .text(r.deviceThumbprint),
         r.deviceName.map { .text($0) } ?? .null, .text(r.signingKid), .integer(ms(r.issued)), .integer(ms(r.expires)),
         r.rentalEnds.map { .integer(ms($0)) } ?? .null, .text(r.rules), .text(r.dataAttributes), .text(r.dissem),
         .text(r.keys), r.released.map { .integer(ms($0)) } ?? .null, r.firstPlayed.map { .integer(ms($0)) } ?? .null]
    }

    private static func record(_ row: [SQLiteValue]) -> OfflineLicenseRecord? {
        guard row.count == 16, case .text(let id) = row[0], case .text(let viewer) = row[1], case .text(let asset) = row[2],
              case .text(let playKey) = row[3], case .text(let device) = row[4], case .text(let kid) = row[6],
              case .integer(let issued) = row[7], case .integer(let expires) = row[8], case .text(let rules) = row[10],
              case .text(let attributes) = row[11], case .text(let dissem) = row[12], case .text(let keys) = row[13]
        else { return nil }
        return OfflineLicenseRecord(
            id: id, viewer: viewer, asset: asset, playKey: playKey, deviceThumbprint: device, deviceName: text(row[5]),
            signingKid: kid, issued: date(issued), expires: date(expires), rentalEnds: integer(row[9]).map(date),
            rules: rules, dataAttributes: attributes, dissem: dissem, keys: keys, released: integer(row[14]).map(date),
            firstPlayed: integer(row[15]).map(date))
    }

    private static func text(_ value: SQLiteValue) -> String? { if case .text(let t) = value { t } else { nil } }
    private static func integer(_ value: SQLiteValue) -> Int64? { if case .integer(let v) = value { v } else { nil } }
    private static func ms(_ date: Date) -> Int64 { SQLiteMediaStore.ms(date) }
    private static func date(_ ms: Int64) -> Date { SQLiteMediaStore.date(ms) }
}
