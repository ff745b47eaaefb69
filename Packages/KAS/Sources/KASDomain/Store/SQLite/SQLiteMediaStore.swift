import Foundation
import MediaDRMMedia

/// `MediaStore` on one SQLite connection in WAL mode.
///
/// Concurrency: HTTP handlers run synchronously on libmicrohttpd worker threads, so the one
/// connection is owned by this class and used under its lock (an actor would force async into
/// synchronous handlers). Within the process the lock serialises; across processes sharing the
/// file, every read-check-write runs in `BEGIN IMMEDIATE`, which takes SQLite's write lock first.
///
/// Durability: WAL with `synchronous=NORMAL`. A transaction is in the WAL (the OS page cache)
/// when COMMIT returns, so a killed process (`kill -9`) loses nothing that committed; an OS crash
/// or power loss can roll back the last few commits but never corrupts the file. What such a loss
/// costs here is small and bounded (a session to restart, a rate bucket refilled, a first-play
/// time recorded at the next key delivery instead), while FULL would fsync the WAL on every key
/// request's rate-limit write.
package final class SQLiteMediaStore: MediaStore, @unchecked Sendable {
    /// The schema version this code writes; `migrations[i]` moves version i to i+1.
    public static let schemaVersion = migrations.count

    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE media_sessions (
                id_hash TEXT PRIMARY KEY NOT NULL,
                viewer TEXT NOT NULL,
                asset TEXT NOT NULL,
                component TEXT,
                protocol TEXT NOT NULL,
                playback TEXT NOT NULL,
                device TEXT,
                created_ms INTEGER NOT NULL,
                heartbeat_ms INTEGER NOT NULL,
                expires_ms INTEGER NOT NULL,
                ended_ms INTEGER
            )
            """,
            "CREATE INDEX media_sessions_viewer ON media_sessions (viewer, asset, expires_ms) WHERE ended_ms IS NULL",
            "CREATE INDEX media_sessions_expiry ON media_sessions (expires_ms)",
            """
            CREATE TABLE media_first_plays (
                viewer TEXT NOT NULL,
                asset TEXT NOT NULL,
                first_key_ms INTEGER NOT NULL,
                PRIMARY KEY (viewer, asset)
            )
            """,
            """
            CREATE TABLE media_asset_limits (
                asset TEXT PRIMARY KEY NOT NULL,
                max_streams INTEGER,
                updated_ms INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE media_rate_buckets (
                key TEXT PRIMARY KEY NOT NULL,
                millitokens INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL
            )
            """,
        ],
        // Version 2 (issue 28): the record bounds' indexes and count (`SQLiteBoundedTable.schema`).
        sessions.schema,
        // Version 3: viewers keyed by issuer and subject (a file with records of an earlier
        // version is marked as keyed by subject alone, refused until `kas store rekey`). Kept
        // last: the rekey tests take a file back to the version before it.
        ViewerKeyScheme.mediaStoreStep,
    ]

    /// The sessions table under its `RecordBounds`.
    static let sessions = SQLiteBoundedTable(table: "media_sessions", ended: "ended_ms")

    /// How many sessions the store keeps, per viewer and in all.
    package let bounds: RecordBounds

    public let path: String
    private let lock = NSLock()
    let database: SQLiteDatabase

    /// Opens (creating when absent) and migrates the store. A database written by a newer
    /// version of this code is refused rather than used with a schema this code does not know.
    package init(path: String, bounds: RecordBounds = .sessions()) throws(StoreError) {
        self.path = path
        self.bounds = bounds
        database = try SQLiteDatabase(path: path)
        try migrate()
    }

    private func migrate() throws(StoreError) {
        try database.migrate(Self.migrations, newerSchema: "the database schema is newer than this server")
    }

    /// The schema version recorded in the file.
    public func storedSchemaVersion() throws(StoreError) -> Int {
        try locked { () throws(StoreError) -> Int in
            let rows = try database.query("SELECT version FROM schema_version")
            guard case .integer(let v)? = rows.first?.first else { return 0 }
            return Int(v)
        }
    }

    /// Closes the connection (on shutdown, after the server stopped taking requests): the WAL
    /// is checkpointed into the database file, and every later operation throws `.closed`.
    /// Committed data survives without this (WAL recovery); closing just leaves a tidy file.
    public func close() {
        lock.withLock { database.checkpointAndClose() }
    }

    func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Sessions

    public func startSession(_ session: NewMediaSession, limit: Int?, maxLiveSessionsPerViewer: Int,
                             now: Date) throws(StoreError) -> SessionStartOutcome {
        let nowMs = Self.ms(now)
        let expiresMs = MediaStoreTime.expiry(nowMs, timeout: session.timeout)
        return try locked { () throws(StoreError) -> SessionStartOutcome in
            try database.transaction { () throws(StoreError) -> SessionStartOutcome in
                // The sessions this one replaces (same playback and component) do not count
                // against the viewer's bound: a restarted player is never locked out.
                var replaceable = 0
                if let component = session.component {
                    replaceable = Self.int(try database.query(
                        "SELECT COUNT(*) FROM media_sessions WHERE \(Self.sameComponentLive)",
                        [.text(session.viewer), .text(session.asset), .text(session.playback), .text(component),
                         .integer(nowMs)]).first?.first)
                }
                let all = try database.query(
                    "SELECT COUNT(*) FROM media_sessions WHERE viewer = ? AND ended_ms IS NULL AND expires_ms > ?",
                    [.text(session.viewer), .integer(nowMs)])
                if Self.int(all.first?.first) - replaceable >= maxLiveSessionsPerViewer { return .tooManySessions }
                if let limit {
                    let joins = try database.query(
                        """
                        SELECT 1 FROM media_sessions WHERE viewer = ? AND asset = ? AND playback = ?
                        AND ended_ms IS NULL AND expires_ms > ? LIMIT 1
                        """,
                        [.text(session.viewer), .text(session.asset), .text(session.playback), .integer(nowMs)])
                    if joins.isEmpty {
                        let playbacks = try database.query(
                            """
                            SELECT COUNT(DISTINCT playback) FROM media_sessions
                            WHERE viewer = ? AND asset = ? AND ended_ms IS NULL AND expires_ms > ?
                            """,
                            [.text(session.viewer), .text(session.asset), .integer(nowMs)])
                        if Self.int(playbacks.first?.first) >= limit { return .concurrencyLimit }
                    }
                }
                guard try Self.sessions.makeRoom(bound: bounds.total, nowMs: nowMs, in: database) else { return .storeFull }
                var replaced = 0
                if let component = session.component {
                    replaced = try endLive(sameComponentAs: (session.viewer, session.asset, session.playback, component),
                                           except: nil, nowMs: nowMs)
                }
                try Self.sessions.dropEnded(of: session.viewer, keeping: bounds.endedPerViewer, nowMs: nowMs, in: database)
                _ = try database.query(
                    """
                    INSERT INTO media_sessions (id_hash, viewer, asset, component, protocol, playback, device,
                        created_ms, heartbeat_ms, expires_ms, ended_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
                    """,
                    [.text(session.idHash), .text(session.viewer), .text(session.asset),
                     session.component.map(SQLiteValue.text) ?? .null, .text(session.protocol.rawValue),
                     .text(session.playback), session.device.map(SQLiteValue.text) ?? .null,
                     .integer(nowMs), .integer(nowMs), .integer(expiresMs)])
                return .started(MediaSessionRecord(
                    idHash: session.idHash, viewer: session.viewer, asset: session.asset, component: session.component,
                    protocol: session.protocol, playback: session.playback, device: session.device,
                    created: Self.date(nowMs), lastHeartbeat: Self.date(nowMs), expires: Self.date(expiresMs), ended: nil),
                    replaced: replaced)
            }
        }
    }

    /// Live sessions of one viewer's playback of an asset bound to one component; the
    /// parameters are viewer, asset, playback, component and now.
    private static let sameComponentLive =
        "viewer = ? AND asset = ? AND playback = ? AND component = ? AND ended_ms IS NULL AND expires_ms > ?"

    /// Ends the live sessions holding `key`'s component of its playback, but `except`; returns
    /// how many. Runs inside the caller's transaction.
    private func endLive(sameComponentAs key: (viewer: String, asset: String, playback: String, component: String),
                         except idHash: String?, nowMs: Int64) throws(StoreError) -> Int {
        _ = try database.query(
            "UPDATE media_sessions SET ended_ms = ? WHERE \(Self.sameComponentLive) AND id_hash IS NOT ?",
            [.integer(nowMs), .text(key.viewer), .text(key.asset), .text(key.playback), .text(key.component),
             .integer(nowMs), idHash.map(SQLiteValue.text) ?? .null])
        return database.changes
    }

    private static let sessionColumns =
        "id_hash, viewer, asset, component, protocol, playback, device, created_ms, heartbeat_ms, expires_ms, ended_ms"

    public func session(idHash: String) throws(StoreError) -> MediaSessionRecord? {
        try locked { () throws(StoreError) -> MediaSessionRecord? in
            try readSession(idHash)
        }
    }

    func readSession(_ idHash: String) throws(StoreError) -> MediaSessionRecord? {
        let rows = try database.query("SELECT \(Self.sessionColumns) FROM media_sessions WHERE id_hash = ?", [.text(idHash)])
        guard let row = rows.first, row.count == 11,
              case .text(let id) = row[0], case .text(let viewer) = row[1], case .text(let asset) = row[2],
              case .text(let protocolText) = row[4], let proto = MediaProtocol(rawValue: protocolText),
              case .text(let playback) = row[5],
              case .integer(let created) = row[7], case .integer(let heartbeat) = row[8],
              case .integer(let expires) = row[9]
        else { return nil }
        var component: String?
        if case .text(let c) = row[3] { component = c }
        var device: String?
        if case .text(let d) = row[6] { device = d }
        var ended: Date?
        if case .integer(let e) = row[10] { ended = Self.date(e) }
        return MediaSessionRecord(idHash: id, viewer: viewer, asset: asset, component: component, protocol: proto,
                                  playback: playback, device: device, created: Self.date(created),
                                  lastHeartbeat: Self.date(heartbeat), expires: Self.date(expires), ended: ended)
    }

    public func heartbeat(idHash: String, viewer: String, now: Date, timeout: TimeInterval) throws(StoreError) -> MediaSessionRecord? {
        let nowMs = Self.ms(now)
        let expiresMs = MediaStoreTime.expiry(nowMs, timeout: timeout)
        return try locked { () throws(StoreError) -> MediaSessionRecord? in
            try database.transaction { () throws(StoreError) -> MediaSessionRecord? in
                _ = try database.query(
                    """
                    UPDATE media_sessions SET heartbeat_ms = ?, expires_ms = ?
                    WHERE id_hash = ? AND viewer = ? AND ended_ms IS NULL AND expires_ms > ?
                    """,
                    [.integer(nowMs), .integer(expiresMs), .text(idHash), .text(viewer), .integer(nowMs)])
                guard database.changes == 1 else { return nil }
                return try readSession(idHash)
            }
        }
    }

    public func endSession(idHash: String, viewer: String, now: Date) throws(StoreError) -> Bool {
        let nowMs = Self.ms(now)
        return try locked { () throws(StoreError) -> Bool in
            _ = try database.query(
                "UPDATE media_sessions SET ended_ms = ? WHERE id_hash = ? AND viewer = ? AND ended_ms IS NULL AND expires_ms > ?",
                [.integer(nowMs), .text(idHash), .text(viewer), .integer(nowMs)])
            return database.changes == 1
        }
    }

    public func bindComponent(idHash: String, component: String, now: Date) throws(StoreError) -> ComponentBinding {
        let nowMs = Self.ms(now)
        return try locked { () throws(StoreError) -> ComponentBinding in
            try database.transaction { () throws(StoreError) -> ComponentBinding in
                _ = try database.query(
                    "UPDATE media_sessions SET component = ? WHERE id_hash = ? AND (component IS NULL OR component = ?)",
                    [.text(component), .text(idHash), .text(component)])
                guard database.changes == 1, let session = try readSession(idHash) else { return .conflict }
                let replaced = try endLive(sameComponentAs: (session.viewer, session.asset, session.playback, component),
                                           except: idHash, nowMs: nowMs)
                return .bound(replaced: replaced)
            }
        }
    }

    public func playbackRank(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int? {
        try locked { () throws(StoreError) -> Int? in
            let rows = try database.query(
                """
                SELECT playback, MIN(created_ms) AS first_created, MIN(rowid) AS first_row FROM media_sessions
                WHERE viewer = ? AND asset = ? AND ended_ms IS NULL AND expires_ms > ?
                GROUP BY playback ORDER BY first_created, first_row
                """,
                [.text(viewer), .text(asset), .integer(Self.ms(now))])
            return rows.firstIndex { $0.first == .text(playback) }
        }
    }

    public func endPlaybackSessions(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int {
        try locked { () throws(StoreError) -> Int in
            try endLiveSessions(viewer: viewer, asset: asset, playback: playback, nowMs: Self.ms(now))
        }
    }

    /// Ends the live sessions of one viewer's playback of an asset; returns how many. Runs
    /// under the caller's lock (and transaction, for `SQLitePlaybackStore.release`).
    func endLiveSessions(viewer: String, asset: String, playback: String, nowMs: Int64) throws(StoreError) -> Int {
        _ = try database.query(
            """
            UPDATE media_sessions SET ended_ms = ?
            WHERE viewer = ? AND asset = ? AND playback = ? AND ended_ms IS NULL AND expires_ms > ?
            """,
            [.integer(nowMs), .text(viewer), .text(asset), .text(playback), .integer(nowMs)])
        return database.changes
    }

    public func liveSessionCount(now: Date) throws(StoreError) -> Int {
        try locked { () throws(StoreError) -> Int in
            let rows = try database.query(
                "SELECT COUNT(*) FROM media_sessions WHERE ended_ms IS NULL AND expires_ms > ?", [.integer(Self.ms(now))])
            return Self.int(rows.first?.first)
        }
    }

    // MARK: First plays and asset limits

    public func firstPlay(viewer: String, asset: String) throws(StoreError) -> Date? {
        try locked { () throws(StoreError) -> Date? in
            let rows = try database.query(
                "SELECT first_key_ms FROM media_first_plays WHERE viewer = ? AND asset = ?", [.text(viewer), .text(asset)])
            guard case .integer(let value)? = rows.first?.first else { return nil }
            return Self.date(value)
        }
    }

    @discardableResult
    public func recordFirstPlay(viewer: String, asset: String, at time: Date) throws(StoreError) -> Date {
        try locked { () throws(StoreError) -> Date in
            try database.transaction { () throws(StoreError) -> Date in
                _ = try database.query(
                    "INSERT OR IGNORE INTO media_first_plays (viewer, asset, first_key_ms) VALUES (?, ?, ?)",
                    [.text(viewer), .text(asset), .integer(Self.ms(time))])
                let rows = try database.query(
                    "SELECT first_key_ms FROM media_first_plays WHERE viewer = ? AND asset = ?", [.text(viewer), .text(asset)])
                guard case .integer(let value)? = rows.first?.first else {
                    throw StoreError(.step, "first-play record missing after insert")
                }
                return Self.date(value)
            }
        }
    }

    public func assetStreamLimit(asset: String) throws(StoreError) -> Int? {
        try locked { () throws(StoreError) -> Int? in
            let rows = try database.query("SELECT max_streams FROM media_asset_limits WHERE asset = ?", [.text(asset)])
            guard case .integer(let value)? = rows.first?.first else { return nil }
            return Int(value)
        }
    }

    public func setAssetStreamLimit(asset: String, limit: Int?, now: Date) throws(StoreError) {
        try locked { () throws(StoreError) -> Void in
            _ = try database.query(
                """
                INSERT INTO media_asset_limits (asset, max_streams, updated_ms) VALUES (?, ?, ?)
                ON CONFLICT (asset) DO UPDATE SET max_streams = excluded.max_streams, updated_ms = excluded.updated_ms
                """,
                [.text(asset), limit.map { .integer(Int64($0)) } ?? .null, .integer(Self.ms(now))])
        }
    }

    // MARK: Rate limits

    public func consumeRateToken(key: String, perMinute: Int, now: Date) throws(StoreError) -> RateLimitDecision {
        let nowMs = Self.ms(now)
        let capacity = RateBucket.capacity(perMinute: perMinute)
        return try locked { () throws(StoreError) -> RateLimitDecision in
            try database.transaction { () throws(StoreError) -> RateLimitDecision in
                let rows = try database.query(
                    "SELECT millitokens, updated_ms FROM media_rate_buckets WHERE key = ?", [.text(key)])
                var tokens = capacity
                if let row = rows.first, row.count == 2, case .integer(let stored) = row[0], case .integer(let updated) = row[1] {
                    // perMinute tokens per 60 000 ms = perMinute millitokens per ms... scaled:
                    // refill (millitokens) = elapsed_ms * capacity / 60 000.
                    let elapsed = max(0, nowMs - updated)
                    let refill = elapsed >= RateBucket.refillMs ? capacity : elapsed * capacity / RateBucket.refillMs
                    tokens = min(capacity, stored + refill)
                }
                let decision: RateLimitDecision
                if tokens >= 1000 {
                    tokens -= 1000
                    decision = .allowed
                } else {
                    let missing = 1000 - tokens
                    let waitMs = (missing * RateBucket.refillMs + capacity - 1) / capacity
                    decision = .limited(retryAfter: Int(max(1, (waitMs + 999) / 1000)))
                }
                _ = try database.query(
                    """
                    INSERT INTO media_rate_buckets (key, millitokens, updated_ms) VALUES (?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET millitokens = excluded.millitokens, updated_ms = excluded.updated_ms
                    """,
                    [.text(key), .integer(tokens), .integer(nowMs)])
                return decision
            }
        }
    }

    public func prune(olderThan: Date, now: Date) throws(StoreError) {
        let cutoff = Self.ms(olderThan)
        try locked { () throws(StoreError) -> Void in
            try database.transaction { () throws(StoreError) -> Void in
                _ = try database.query(
                    "DELETE FROM media_sessions WHERE (ended_ms IS NOT NULL AND ended_ms < ?) OR expires_ms < ?",
                    [.integer(cutoff), .integer(cutoff)])
                // A bucket untouched for a minute is full again: the same as no row.
                _ = try database.query("DELETE FROM media_rate_buckets WHERE updated_ms < ?",
                                       [.integer(Self.ms(now) - RateBucket.refillMs)])
            }
        }
    }

    // MARK: Helpers

    static func ms(_ date: Date) -> Int64 { MediaStoreTime.ms(date) }
    static func date(_ ms: Int64) -> Date { MediaStoreTime.date(ms) }
    static func int(_ value: SQLiteValue?) -> Int {
        if case .integer(let v)? = value { return Int(v) }
        return 0
    }
}
