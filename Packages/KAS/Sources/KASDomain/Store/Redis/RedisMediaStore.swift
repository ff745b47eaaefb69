import Foundation
import KASRedis
import MediaDRMMedia

/// `MediaStore` in Redis, shared by every KAS node that points at the same server
/// (docs/kas.md#scale-out): the same outcomes as `SQLiteMediaStore` for every call, with the same
/// millisecond precision and the same live and expired rules, judged against the `now` each call
/// passes in (the KAS clock), never against Redis TTLs.
///
/// Atomicity: every read-check-write is one Lua script (`RedisMediaStore.Scripts`), which Redis
/// runs without interleaving any other command, so 20 nodes starting sessions for one viewer at
/// once admit exactly the stream limit. Reads are scripts too, so each key format is written
/// once, in the scripts' prelude.
///
/// Data model (every key starts with `keyPrefix`, `kas:` by default; `<n>` is the viewer key's
/// length, so a viewer and an asset never run together ambiguously):
/// - `session:<id hash>` — hash: `viewer`, `asset`, `component`?, `protocol`, `playback`,
///   `device`?, `created`, `heartbeat`, `expires`, `ended`? (milliseconds) and `sequence` (from
///   `sessions-sequence`, the insertion order that breaks ties in `playbackRank` as SQLite's
///   rowid does).
/// - `viewer:<viewer>` and `viewer-asset:<n>:<viewer>:<asset>` — sorted sets of the viewer's
///   sessions not ended, scored by expiry: the live ones are those scored above `now`.
/// - `viewer-ended:<viewer>` — sorted set of the viewer's ended sessions by end time: with
///   `viewer:<viewer>`, what the per-viewer bound of `RecordBounds` counts and drops.
/// - `sessions-live` — sorted set of every session not ended, by expiry (`liveSessionCount` is
///   one `ZCOUNT`, no scan); `sessions-expiry` (every session, by expiry: its `ZCARD` is the
///   count the total bound compares) and `sessions-ended` (ended sessions, by end time) are what
///   `prune` walks, a bounded batch per call, and what a full store drops the oldest ended from.
/// - `first-play:<n>:<viewer>:<asset>` — string, the first key delivery (`SET NX`); never expires
///   and is never pruned.
/// - `asset-limit:<asset>` — hash: `limit`? and `updated`.
/// - `rate:<key>` — hash: `millitokens`, `updated`; `rate-index` — sorted set of bucket keys by
///   last use, for `prune`.
/// No key has a TTL: what expires is decided by the data and `now`, and `prune` deletes it.
///
/// Redis Cluster: scripts derive keys from the values they read (a session's viewer and asset),
/// which Cluster allows only when every key is in one hash slot. A prefix with a hash tag (for
/// example `{kas}:`) puts them all in one slot, which is correct but does not spread the load; the
/// supported deployment is one Redis primary (docs/kas.md#scale-out).
///
/// Failures: every `RedisError` becomes `StoreError(.unavailable, …)` in `evaluate` (one place),
/// so the services answer 503 `state store unavailable`; a reason never holds an id or a password.
package final class RedisMediaStore: MediaStore {
    /// Sessions (and, apart, rate buckets) `prune` deletes at most per call, so one call never
    /// holds Redis for long; `MediaService` prunes every 256 operations, which keeps up.
    static let pruneBatch = 500

    private let client: RedisClient
    /// Prepended to every key, so several deployments (or tests) can share one Redis.
    public let keyPrefix: String
    /// How many sessions the store keeps, per viewer and in all (every node should pass the same).
    package let bounds: RecordBounds

    package init(client: RedisClient, keyPrefix: String = "kas:", bounds: RecordBounds = .sessions()) {
        self.client = client
        self.keyPrefix = keyPrefix
        self.bounds = bounds
    }

    // MARK: Sessions

    public func startSession(_ session: NewMediaSession, limit: Int?, maxLiveSessionsPerViewer: Int,
                             now: Date) throws(StoreError) -> SessionStartOutcome {
        let nowMs = MediaStoreTime.ms(now)
        let expiresMs = MediaStoreTime.expiry(nowMs, timeout: session.timeout)
        let reply = try evaluate(Scripts.startSession, [
            session.idHash, session.viewer, session.asset, Self.optional(session.component), session.protocol.rawValue,
            session.playback, Self.optional(session.device), String(nowMs), String(expiresMs),
            Self.optional(limit.map(String.init)), String(maxLiveSessionsPerViewer),
            String(bounds.endedPerViewer), String(bounds.total), String(RecordBounds.dropBatch),
        ])
        let parts = reply.array ?? []
        switch parts.first?.string {
        case "started"?:
            guard parts.count == 2, let replaced = parts[1].int else { throw Self.unexpectedReply }
            return .started(MediaSessionRecord(
                idHash: session.idHash, viewer: session.viewer, asset: session.asset, component: session.component,
                protocol: session.protocol, playback: session.playback, device: session.device,
                created: MediaStoreTime.date(nowMs), lastHeartbeat: MediaStoreTime.date(nowMs),
                expires: MediaStoreTime.date(expiresMs), ended: nil), replaced: Int(replaced))
        case "limit"?: return .concurrencyLimit
        case "too-many"?: return .tooManySessions
        case "full"?: return .storeFull
        case "duplicate"?: throw StoreError(.constraint, "a session with this id is stored already")
        default: throw Self.unexpectedReply
        }
    }

    public func session(idHash: String) throws(StoreError) -> MediaSessionRecord? {
        try Self.record(idHash: idHash, try evaluate(Scripts.session, [idHash]))
    }

    public func heartbeat(idHash: String, viewer: String, now: Date, timeout: TimeInterval) throws(StoreError) -> MediaSessionRecord? {
        let nowMs = MediaStoreTime.ms(now)
        let reply = try evaluate(Scripts.heartbeat, [idHash, viewer, String(nowMs),
                                                     String(MediaStoreTime.expiry(nowMs, timeout: timeout))])
        return try Self.record(idHash: idHash, reply)
    }

    public func endSession(idHash: String, viewer: String, now: Date) throws(StoreError) -> Bool {
        try integer(Scripts.endSession, [idHash, viewer, String(MediaStoreTime.ms(now))]) == 1
    }

    public func bindComponent(idHash: String, component: String, now: Date) throws(StoreError) -> ComponentBinding {
        let replaced = try integer(Scripts.bindComponent, [idHash, component, String(MediaStoreTime.ms(now))])
        return replaced < 0 ? .conflict : .bound(replaced: replaced)
    }

    public func playbackRank(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int? {
        let rank = try integer(Scripts.playbackRank, [viewer, asset, playback, String(MediaStoreTime.ms(now))])
        return rank < 0 ? nil : rank
    }

    public func liveSessionCount(now: Date) throws(StoreError) -> Int {
        try integer(Scripts.liveSessionCount, [String(MediaStoreTime.ms(now))])
    }

    public func endPlaybackSessions(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int {
        try integer(Scripts.endPlaybackSessions, [viewer, asset, playback, String(MediaStoreTime.ms(now))])
    }

    // MARK: First plays and asset limits

    public func firstPlay(viewer: String, asset: String) throws(StoreError) -> Date? {
        let reply = try evaluate(Scripts.firstPlay, [viewer, asset])
        if case .bulk(nil) = reply { return nil }
        return try Self.time(reply)
    }

    @discardableResult
    public func recordFirstPlay(viewer: String, asset: String, at time: Date) throws(StoreError) -> Date {
        try Self.time(try evaluate(Scripts.recordFirstPlay, [viewer, asset, String(MediaStoreTime.ms(time))]))
    }

    public func assetStreamLimit(asset: String) throws(StoreError) -> Int? {
        try Self.limitRecord(asset: asset, try evaluate(Scripts.assetStreamLimit, [asset]))?.limit
    }

    public func setAssetStreamLimit(asset: String, limit: Int?, now: Date) throws(StoreError) {
        _ = try evaluate(Scripts.setAssetStreamLimit, [asset, Self.optional(limit.map(String.init)),
                                                       String(MediaStoreTime.ms(now))])
    }

    // MARK: Rate limits

    public func consumeRateToken(key: String, perMinute: Int, now: Date) throws(StoreError) -> RateLimitDecision {
        let capacity = RateBucket.capacity(perMinute: perMinute)
        let retry = try integer(Scripts.consumeRateToken, [key, String(capacity), String(MediaStoreTime.ms(now)),
                                                                     String(RateBucket.refillMs)])
        return retry == 0 ? .allowed : .limited(retryAfter: retry)
    }

    /// Deletes at most `pruneBatch` sessions expired before `olderThan`, as many ended before it,
    /// and as many rate buckets untouched for a minute (full again); later calls take the rest.
    public func prune(olderThan: Date, now: Date) throws(StoreError) {
        _ = try evaluate(Scripts.prune, [String(MediaStoreTime.ms(olderThan)),
                                         String(MediaStoreTime.ms(now) - RateBucket.refillMs),
                                         String(Self.pruneBatch)])
    }

    // MARK: Migration

    /// Copies records exported from another store (`SQLiteMediaStore.exportRecords`) into this
    /// one. Idempotent: a session whose id is stored is left as it is, an earlier first play is
    /// kept, and a stream limit is written as exported (with its update time).
    public func importRecords(_ records: MediaStoreRecords) throws(StoreError) {
        for session in records.sessions {
            _ = try evaluate(Scripts.importSession, [
                session.idHash, session.viewer, session.asset, Self.optional(session.component),
                session.protocol.rawValue, session.playback, Self.optional(session.device),
                String(MediaStoreTime.ms(session.created)), String(MediaStoreTime.ms(session.lastHeartbeat)),
                String(MediaStoreTime.ms(session.expires)), Self.optional(session.ended.map { String(MediaStoreTime.ms($0)) }),
            ])
        }
        for play in records.firstPlays {
            _ = try evaluate(Scripts.importFirstPlay, [play.viewer, play.asset, String(MediaStoreTime.ms(play.time))])
        }
        for limit in records.streamLimits {
            try setAssetStreamLimit(asset: limit.asset, limit: limit.limit, now: limit.updated)
        }
    }

    // MARK: Redis calls and replies

    /// Runs one script with the key prefix first; the one place this store turns a
    /// `RedisError` into a `StoreError` (`.unavailable`, whose reason names the store by its
    /// redacted URL and never repeats the arguments: ids, viewers).
    private func evaluate(_ script: RedisScript, _ arguments: [String]) throws(StoreError) -> RESPValue {
        do {
            return try client.evaluate(script, keys: [], arguments: [keyPrefix] + arguments)
        } catch {
            throw StoreError(error)
        }
    }

    private func integer(_ script: RedisScript, _ arguments: [String]) throws(StoreError) -> Int {
        guard let value = try evaluate(script, arguments).int else { throw Self.unexpectedReply }
        return Int(value)
    }

    private static let unexpectedReply = StoreError(.unavailable, "the Redis state store sent an unexpected reply")

    /// An optional script argument: `""` for none, `"+" + value` otherwise (the scripts' `optional`).
    static func optional(_ value: String?) -> String { value.map { "+" + $0 } ?? "" }

    private static func time(_ reply: RESPValue) throws(StoreError) -> Date {
        guard let text = reply.string, let ms = Int64(text) else { throw unexpectedReply }
        return MediaStoreTime.date(ms)
    }

    /// A session from its hash as HGETALL returns it (name, value, …); nil when empty or nil.
    private static func record(idHash: String, _ reply: RESPValue) throws(StoreError) -> MediaSessionRecord? {
        guard let flat = reply.array, !flat.isEmpty else { return nil }
        let fields = reply.hashFields
        func ms(_ name: String) -> Int64? { fields[name].flatMap { Int64($0) } }
        guard let viewer = fields["viewer"], let asset = fields["asset"],
              let proto = fields["protocol"].flatMap(MediaProtocol.init(rawValue:)), let playback = fields["playback"],
              let created = ms("created"), let heartbeat = ms("heartbeat"), let expires = ms("expires")
        else { throw unexpectedReply }
        return MediaSessionRecord(idHash: idHash, viewer: viewer, asset: asset, component: fields["component"],
                                  protocol: proto, playback: playback, device: fields["device"],
                                  created: MediaStoreTime.date(created), lastHeartbeat: MediaStoreTime.date(heartbeat),
                                  expires: MediaStoreTime.date(expires), ended: ms("ended").map(MediaStoreTime.date))
    }

    private static func limitRecord(asset: String, _ reply: RESPValue) throws(StoreError) -> AssetStreamLimitRecord? {
        guard let parts = reply.array else { throw unexpectedReply }
        guard parts.count == 2 else { return nil }
        guard let updated = parts[1].string.flatMap({ Int64($0) }) else { throw unexpectedReply }
        var limit: Int?
        if case .bulk(nil) = parts[0] {
            limit = nil
        } else {
            guard let value = parts[0].string.flatMap({ Int($0) }) else { throw unexpectedReply }
            limit = value
        }
        return AssetStreamLimitRecord(asset: asset, limit: limit, updated: MediaStoreTime.date(updated))
    }
}
