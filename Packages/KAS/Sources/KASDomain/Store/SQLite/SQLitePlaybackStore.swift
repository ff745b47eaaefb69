import Foundation
import MediaDRMCrypto

/// The playbacks (`PlaybackStore`) of a single node, in the KAS's SQLite file (`media.sqlite`),
/// so a restarted KAS still renews, licenses and releases the playbacks it started; the licence
/// URLs' key lives beside it in the data directory (`LicenseURLKeyFile`).
///
/// The table is its own, with its own schema version (`playback_schema_version`), so its
/// migrations and the media store's never depend on each other; it is reached through the media
/// store's connection and lock, so releasing a playback and ending its media sessions is one
/// transaction. Concurrency and durability are the media store's (`SQLiteMediaStore`).
///
/// No subject in clear: a row holds SHA-256 (hex) of the playback id, the viewer's store key
/// (`Identity.storeKey`) and the playback sealed as the Redis store seals it (`PlaybackSeal`,
/// under the storage key of the default Redis prefix), which only the playback id opens.
final class SQLitePlaybackStore: PlaybackStore, @unchecked Sendable {
    /// `migrations[i]` moves version i to i+1.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE playbacks (
                id_hash TEXT PRIMARY KEY NOT NULL,
                viewer TEXT NOT NULL,
                sealed TEXT NOT NULL,
                created_ms INTEGER NOT NULL,
                expires_ms INTEGER NOT NULL,
                released_ms INTEGER
            )
            """,
        ] + table.schema,
    ]

    /// The playbacks table under its `RecordBounds`.
    static let table = SQLiteBoundedTable(table: "playbacks", ended: "released_ms")

    private let media: SQLiteMediaStore
    private var database: SQLiteDatabase { media.database }
    /// How many playbacks the store keeps, per viewer and in all.
    let bounds: RecordBounds
    private let urlKey: SecretKey

    /// Migrates the playbacks table on the media store's connection and reads (or draws, the
    /// first time) the licence URL key at `licenseURLKeyFile`.
    init(media: SQLiteMediaStore, licenseURLKeyFile: String, bounds: RecordBounds = .playbacks()) throws(StoreError) {
        self.media = media
        self.bounds = bounds
        try Self.migrate(media)
        urlKey = try LicenseURLKeyFile.loadOrCreate(licenseURLKeyFile)
    }

    private static func migrate(_ media: SQLiteMediaStore) throws(StoreError) {
        try media.locked { () throws(StoreError) -> Void in
            try media.database.migrate(versionTable: "playback_schema_version", migrations: migrations)
        }
    }

    /// The media store closes the shared connection.
    func close() {}

    func licenseURLKey() -> SecretKey { urlKey }

    func insert(_ playback: PlaybackRecord, maxLivePerViewer: Int, now: Date) throws(StoreError) -> PlaybackInsertOutcome {
        let storageKey = PlaybackSeal.storageKey(id: playback.id)
        let sealed = try PlaybackSeal.seal(playback, storageKey: storageKey)
        let viewer = playback.viewer.storeKey
        let nowMs = MediaStoreTime.ms(now)
        return try media.locked { () throws(StoreError) -> PlaybackInsertOutcome in
            try database.transaction { () throws(StoreError) -> PlaybackInsertOutcome in
                let table = Self.table
                let stored = try database.query("SELECT 1 FROM playbacks WHERE id_hash = ?", [.text(MediaSessionID.hash(playback.id))])
                guard stored.isEmpty else { return .duplicate }
                if try table.liveCount(of: viewer, nowMs: nowMs, in: database) >= maxLivePerViewer { return .tooManyPlaybacks }
                guard try table.makeRoom(bound: bounds.total, nowMs: nowMs, in: database) else { return .storeFull }
                try table.dropEnded(of: viewer, keeping: bounds.endedPerViewer, nowMs: nowMs, in: database)
                _ = try database.query(
                    "INSERT INTO playbacks (id_hash, viewer, sealed, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?)",
                    [.text(MediaSessionID.hash(playback.id)), .text(viewer), .text(sealed), .integer(nowMs),
                     .integer(MediaStoreTime.ms(playback.expires))])
                return .inserted
            }
        }
    }

    func remove(_ id: String) throws(StoreError) {
        try media.locked { () throws(StoreError) -> Void in
            _ = try database.query("DELETE FROM playbacks WHERE id_hash = ?", [.text(MediaSessionID.hash(id))])
        }
    }

    func live(_ id: String, now: Date) throws(StoreError) -> PlaybackRecord? {
        let rows = try media.locked { () throws(StoreError) -> [[SQLiteValue]] in
            try database.query("SELECT sealed, expires_ms FROM playbacks WHERE id_hash = ? AND released_ms IS NULL",
                               [.text(MediaSessionID.hash(id))])
        }
        guard let row = rows.first else { return nil }
        guard row.count == 2, case .text(let sealed) = row[0], case .integer(let expiresMs) = row[1] else {
            throw StoreError(.unavailable, "a stored playback cannot be opened")
        }
        let playback = try PlaybackSeal.open(sealed, id: id, storageKey: PlaybackSeal.storageKey(id: id),
                                             expires: MediaStoreTime.date(expiresMs))
        return playback.isLive(at: now) ? playback : nil
    }

    func release(_ id: String, viewer: String, now: Date) throws(StoreError) -> ReleasedPlayback? {
        // The asset is inside the seal: open it first, then release and end the sessions in one
        // transaction that checks liveness again.
        guard var playback = try live(id, now: now), playback.viewer.storeKey == viewer else { return nil }
        let nowMs = MediaStoreTime.ms(now)
        let ended = try media.locked { () throws(StoreError) -> Int? in
            try database.transaction { () throws(StoreError) -> Int? in
                _ = try database.query(
                    """
                    UPDATE playbacks SET released_ms = ?
                    WHERE id_hash = ? AND viewer = ? AND released_ms IS NULL AND expires_ms > ?
                    """,
                    [.integer(nowMs), .text(MediaSessionID.hash(id)), .text(viewer), .integer(nowMs)])
                guard database.changes == 1 else { return nil }
                return try media.endLiveSessions(viewer: viewer, asset: playback.assetID,
                                                 playback: MediaSessionID.playbackKey(clientPlaybackID: id), nowMs: nowMs)
            }
        }
        guard let ended else { return nil }
        playback.released = true
        return ReleasedPlayback(playback: playback, endedSessions: ended)
    }

    func extend(_ id: String, to expires: Date, now: Date) throws(StoreError) {
        try media.locked { () throws(StoreError) -> Void in
            _ = try database.query(
                "UPDATE playbacks SET expires_ms = MAX(expires_ms, ?) WHERE id_hash = ? AND released_ms IS NULL",
                [.integer(MediaStoreTime.ms(expires)), .text(MediaSessionID.hash(id))])
        }
    }

    func prune(olderThan: Date) throws(StoreError) {
        let cutoff = MediaStoreTime.ms(olderThan)
        try media.locked { () throws(StoreError) -> Void in
            _ = try database.query(
                "DELETE FROM playbacks WHERE (released_ms IS NOT NULL AND released_ms < ?) OR expires_ms < ?",
                [.integer(cutoff), .integer(cutoff)])
        }
    }

    // MARK: Migration

    /// Every playback stored in `media`'s file, sealed as stored, oldest first: for `kas store
    /// migrate` (`RedisPlaybackStore.importPlayback`), which has no licence URL key to open a
    /// store with (and must not draw one in the data directory).
    static func exportPlaybacks(from media: SQLiteMediaStore) throws(StoreError) -> [SealedPlayback] {
        try migrate(media)
        let rows = try media.locked { () throws(StoreError) -> [[SQLiteValue]] in
            try media.database.query(
                "SELECT id_hash, viewer, sealed, created_ms, expires_ms, released_ms FROM playbacks ORDER BY rowid")
        }
        var playbacks: [SealedPlayback] = []
        for row in rows {
            guard row.count == 6, case .text(let idHash) = row[0], case .text(let viewer) = row[1],
                  case .text(let sealed) = row[2], case .integer(let created) = row[3], case .integer(let expires) = row[4]
            else { throw StoreError(.step, "a stored playback is unreadable") }
            var released: Date?
            if case .integer(let ms) = row[5] { released = MediaStoreTime.date(ms) }
            playbacks.append(SealedPlayback(idHash: idHash, viewer: viewer, sealed: sealed, created: MediaStoreTime.date(created),
                                            expires: MediaStoreTime.date(expires), released: released))
        }
        return playbacks
    }
}
