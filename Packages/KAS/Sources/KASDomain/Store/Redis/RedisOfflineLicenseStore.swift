import Foundation
import KASRedis

/// The offline licences (`OfflineLicenseStore`) in Redis, shared by every node on the same server
/// (docs/kas.md#scale-out), with the same outcomes as `SQLiteOfflineStore`. `issue` counts the
/// viewer's live devices, releases the same device's live licence and stores the new one in one
/// Lua script, so parallel issues on any number of nodes admit exactly `maxOfflineDevices`.
/// Live and expired are judged against the `now` each call passes in (the KAS clock).
///
/// Data model (every key starts with `keyPrefix`, `kas:` by default):
/// - `offline:license:<id>` — hash, one field per `offline_licenses` column of the SQLite store
///   (`viewer`, `asset`, `play_key`, `device`, `device_name`?, `signing_kid`, `issued_ms`,
///   `expires_ms`, `rental_ends_ms`?, `rules`, `data_attributes`, `dissem`, `keys`,
///   `released_ms`?, `first_played_ms`?). The viewer is `Identity.storeKey`, never a subject.
/// - `offline:viewer:<n>:<viewer>:<asset>` — set of the licence ids of one viewer and asset
///   (`<n>` the viewer key's length, so viewer and asset never run together ambiguously).
/// - `offline:live` — sorted set of the licences not released, by expiry (`liveSigningKids`
///   reads those above `now`, no scan).
/// - `offline:all` — set of every licence id (`allLicenses`, for `kas store migrate`).
/// Nothing has a TTL: a licence record stays as SQLite keeps its row.
final class RedisOfflineLicenseStore: OfflineLicenseStore {
    private let client: RedisClient
    let keyPrefix: String

    init(client: RedisClient, keyPrefix: String = "kas:") {
        self.client = client
        self.keyPrefix = keyPrefix
    }

    func close() {}

    private var licensePrefix: String { keyPrefix + "offline:license:" }
    private var liveKey: String { keyPrefix + "offline:live" }
    private var allKey: String { keyPrefix + "offline:all" }
    private func viewerKey(_ viewer: String, _ asset: String) -> String {
        keyPrefix + "offline:viewer:\(viewer.utf8.count):\(viewer):\(asset)"
    }

    // MARK: Scripts

    /// KEYS: viewer set, new licence hash, live set, all set. ARGV: now, device, max devices, id,
    /// expires, licence key prefix, then the new hash's field/value pairs. -1 at the device
    /// limit, else the number of the same device's live licences released for it.
    private static let issueScript = RedisScript("""
        local now = tonumber(ARGV[1])
        local devices, count, replaced = {}, 0, {}
        for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
          local f = redis.call('HMGET', ARGV[6] .. id, 'device', 'expires_ms', 'released_ms')
          if f[1] and not f[3] and tonumber(f[2]) > now then
            if f[1] == ARGV[2] then
              table.insert(replaced, id)
            elseif not devices[f[1]] then
              devices[f[1]] = true
              count = count + 1
            end
          end
        end
        if count >= tonumber(ARGV[3]) then return -1 end
        for _, id in ipairs(replaced) do
          redis.call('HSET', ARGV[6] .. id, 'released_ms', ARGV[1])
          redis.call('ZREM', KEYS[3], id)
        end
        redis.call('DEL', KEYS[2])
        redis.call('HSET', KEYS[2], unpack(ARGV, 7))
        redis.call('SADD', KEYS[1], ARGV[4])
        redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
        redis.call('SADD', KEYS[4], ARGV[4])
        return #replaced
        """)

    /// KEYS: licence hash, live set. ARGV: now, id, signing kid, issued, expires, rental end or "".
    private static let renewScript = RedisScript("""
        local f = redis.call('HMGET', KEYS[1], 'expires_ms', 'released_ms')
        if not f[1] or f[2] or tonumber(f[1]) <= tonumber(ARGV[1]) then return 0 end
        redis.call('HSET', KEYS[1], 'signing_kid', ARGV[3], 'issued_ms', ARGV[4], 'expires_ms', ARGV[5])
        if ARGV[6] == '' then
          redis.call('HDEL', KEYS[1], 'rental_ends_ms')
        else
          redis.call('HSET', KEYS[1], 'rental_ends_ms', ARGV[6])
        end
        redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
        return 1
        """)

    /// KEYS: licence hash, live set. ARGV: now, id, viewer.
    private static let releaseScript = RedisScript("""
        local f = redis.call('HMGET', KEYS[1], 'viewer', 'released_ms')
        if f[1] ~= ARGV[3] or f[2] then return 0 end
        redis.call('HSET', KEYS[1], 'released_ms', ARGV[1])
        redis.call('ZREM', KEYS[2], ARGV[2])
        return 1
        """)

    /// KEYS: licence hash. ARGV: time. Keeps the earliest.
    private static let firstPlayScript = RedisScript("""
        if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
        local current = redis.call('HGET', KEYS[1], 'first_played_ms')
        if not current or tonumber(ARGV[1]) < tonumber(current) then
          redis.call('HSET', KEYS[1], 'first_played_ms', ARGV[1])
        end
        return 1
        """)

    /// KEYS: live set. ARGV: now, licence key prefix. The distinct signing kids of the live licences.
    private static let signingKidsScript = RedisScript("""
        local kids, out = {}, {}
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')) do
          local f = redis.call('HMGET', ARGV[2] .. id, 'signing_kid', 'released_ms')
          if f[1] and not f[2] and not kids[f[1]] then
            kids[f[1]] = true
            table.insert(out, f[1])
          end
        end
        return out
        """)

    /// KEYS: licence hash, viewer set, live set, all set. ARGV: id, expires, released ("" when
    /// not), then the hash's field/value pairs.
    private static let importScript = RedisScript("""
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[1], unpack(ARGV, 4))
        redis.call('SADD', KEYS[2], ARGV[1])
        redis.call('SADD', KEYS[4], ARGV[1])
        if ARGV[3] == '' then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]) else redis.call('ZREM', KEYS[3], ARGV[1]) end
        return 1
        """)

    // MARK: OfflineLicenseStore

    func issue(_ record: OfflineLicenseRecord, maxDevices: Int, now: Date) throws(StoreError) -> OfflineIssueOutcome {
        let reply = try RedisStoreCalls.evaluate(
            client, Self.issueScript, keys: [viewerKey(record.viewer, record.asset), licensePrefix + record.id, liveKey, allKey],
            arguments: [Self.ms(now), record.deviceThumbprint, String(maxDevices), record.id, Self.ms(record.expires),
                        licensePrefix] + Self.fields(record))
        guard let replaced = reply.int else { throw StoreError(.unavailable, "unexpected reply from the offline store") }
        return replaced < 0 ? .deviceLimit : .issued(replaced: Int(replaced))
    }

    func license(id: String) throws(StoreError) -> OfflineLicenseRecord? {
        Self.record(id, try RedisStoreCalls.hash(client, licensePrefix + id))
    }

    func renew(_ record: OfflineLicenseRecord, now: Date) throws(StoreError) -> Bool {
        try RedisStoreCalls.evaluate(
            client, Self.renewScript, keys: [licensePrefix + record.id, liveKey],
            arguments: [Self.ms(now), record.id, record.signingKid, Self.ms(record.issued), Self.ms(record.expires),
                        record.rentalEnds.map(Self.ms) ?? ""]).int == 1
    }

    func release(id: String, viewer: String, now: Date) throws(StoreError) -> Bool {
        try RedisStoreCalls.evaluate(client, Self.releaseScript, keys: [licensePrefix + id, liveKey],
                                     arguments: [Self.ms(now), id, viewer]).int == 1
    }

    func recordFirstPlay(id: String, at time: Date) throws(StoreError) {
        _ = try RedisStoreCalls.evaluate(client, Self.firstPlayScript, keys: [licensePrefix + id], arguments: [Self.ms(time)])
    }

    func liveSigningKids(now: Date) throws(StoreError) -> Set<String> {
        let reply = try RedisStoreCalls.evaluate(client, Self.signingKidsScript, keys: [liveKey],
                                                 arguments: [Self.ms(now), licensePrefix])
        return Set((reply.array ?? []).compactMap(\.string))
    }

    func allLicenses() throws(StoreError) -> [OfflineLicenseRecord] {
        let ids = try RedisStoreCalls.command(client, ["SMEMBERS", allKey]).array ?? []
        var records: [OfflineLicenseRecord] = []
        for case let id? in ids.map(\.string) {
            if let record = Self.record(id, try RedisStoreCalls.hash(client, licensePrefix + id)) { records.append(record) }
        }
        // `SQLiteOfflineStore.allLicenses`'s order: issue time, then id.
        return records.sorted { ($0.issued, $0.id) < ($1.issued, $1.id) }
    }

    func importLicense(_ record: OfflineLicenseRecord) throws(StoreError) {
        _ = try RedisStoreCalls.evaluate(
            client, Self.importScript,
            keys: [licensePrefix + record.id, viewerKey(record.viewer, record.asset), liveKey, allKey],
            arguments: [record.id, Self.ms(record.expires), record.released.map(Self.ms) ?? ""] + Self.fields(record))
    }

    // MARK: Fields

    private static func fields(_ r: OfflineLicenseRecord) -> [String] {
        var fields = ["viewer", r.viewer, "asset", r.asset, "play_key", r.playKey, "device", r.deviceThumbprint,
                      "signing_kid", r.signingKid, "issued_ms", ms(r.issued), "expires_ms", ms(r.expires),
                      "rules", r.rules, "data_attributes", r.dataAttributes, "dissem", r.dissem, "keys", r.keys]
        if let name = r.deviceName { fields += ["device_name", name] }
        if let ends = r.rentalEnds { fields += ["rental_ends_ms", ms(ends)] }
        if let released = r.released { fields += ["released_ms", ms(released)] }
        if let played = r.firstPlayed { fields += ["first_played_ms", ms(played)] }
        return fields
    }

    /// A licence from its hash; nil when absent or unreadable (as `SQLiteOfflineStore` skips a bad row).
    private static func record(_ id: String, _ f: [String: String]) -> OfflineLicenseRecord? {
        guard let viewer = f["viewer"], let asset = f["asset"], let playKey = f["play_key"], let device = f["device"],
              let kid = f["signing_kid"], let issued = date(f["issued_ms"]), let expires = date(f["expires_ms"]),
              let rules = f["rules"], let attributes = f["data_attributes"], let dissem = f["dissem"], let keys = f["keys"]
        else { return nil }
        return OfflineLicenseRecord(
            id: id, viewer: viewer, asset: asset, playKey: playKey, deviceThumbprint: device, deviceName: f["device_name"],
            signingKid: kid, issued: issued, expires: expires, rentalEnds: date(f["rental_ends_ms"]), rules: rules,
            dataAttributes: attributes, dissem: dissem, keys: keys, released: date(f["released_ms"]),
            firstPlayed: date(f["first_played_ms"]))
    }

    private static func ms(_ date: Date) -> String { String(MediaStoreTime.ms(date)) }
    private static func date(_ text: String?) -> Date? { text.flatMap { Int64($0) }.map(MediaStoreTime.date) }
}
