import Foundation
import KASRedis

/// `kas store rekey` on a Redis store (`StoreRekey`). The keys that embed a viewer key (data
/// model in `RedisMediaStore` and `RedisOfflineLicenseStore`) are found by SCAN, their new names
/// computed here (Lua has no SHA-256), and one script checks every one of them and only then
/// renames them, rewrites the `viewer` field of sessions and licences, moves the rate buckets'
/// `rate-index` members and marks the store (`ViewerKeyScheme`). A key that changed between
/// the scan and the script (a node still running) stops it before any write.
///
/// | Key (after the prefix) | Viewer key k in | Becomes |
/// |---|---|---|
/// | `session:<id>`, `offline:license:<id>` | the `viewer` field | the field rewritten |
/// | `viewer:<k>` | the name | renamed |
/// | `viewer-asset:<n>:<k>:<asset>`, `first-play:<n>:<k>:<asset>`, `offline:viewer:<n>:<k>:<asset>` | the name (`<n>` its length) | renamed |
/// | `rate:<kind>:<k>` and its `rate-index` member | the name | renamed, member moved |
///
/// Playbacks (`playback:<hash>`) seal the whole identity: their viewer key is computed on reading.
struct RedisViewerRekey {
    let client: RedisClient
    let prefix: String

    enum Outcome: Equatable {
        case rekeyed(StoreRekey.Counts)
        /// The store keys by issuer and subject already; the issuer it was rekeyed to, if it was.
        case already(rekeyedIssuer: String?)
    }

    /// ARGV: prefix, issuer, now (ms), then the renames (count, then from/to pairs), the viewer
    /// fields (count, then key/old/new triples) and the `rate-index` members (count, then
    /// from/to pairs). Answers `already`, `changed` (nothing written) or `rekeyed`. Everything
    /// is checked before the first write: a script that stops half-way keeps what it wrote.
    private static let script = RedisScript(#"""
    local prefix, issuer, now = ARGV[1], ARGV[2], ARGV[3]
    local marker = prefix .. 'viewer-keys'
    if redis.call('HGET', marker, 'scheme') == 'issuer+subject' then return 'already' end
    local renames = tonumber(ARGV[4])
    local fields_at = 5 + 2 * renames
    local fields = tonumber(ARGV[fields_at])
    local members_at = fields_at + 1 + 3 * fields
    local members = tonumber(ARGV[members_at])
    for i = 0, renames - 1 do
      if redis.call('EXISTS', ARGV[5 + 2 * i]) == 0 or redis.call('EXISTS', ARGV[6 + 2 * i]) == 1 then return 'changed' end
    end
    for i = 0, fields - 1 do
      if redis.call('HGET', ARGV[fields_at + 1 + 3 * i], 'viewer') ~= ARGV[fields_at + 2 + 3 * i] then return 'changed' end
    end
    for i = 0, renames - 1 do redis.call('RENAME', ARGV[5 + 2 * i], ARGV[6 + 2 * i]) end
    for i = 0, fields - 1 do redis.call('HSET', ARGV[fields_at + 1 + 3 * i], 'viewer', ARGV[fields_at + 3 + 3 * i]) end
    local index = prefix .. 'rate-index'
    for i = 0, members - 1 do
      local from, to = ARGV[members_at + 1 + 2 * i], ARGV[members_at + 2 + 2 * i]
      local score = redis.call('ZSCORE', index, from)
      if score then
        redis.call('ZREM', index, from)
        redis.call('ZADD', index, score, to)
      end
    end
    redis.call('HSET', marker, 'scheme', 'issuer+subject', 'rekeyed_issuer', issuer, 'rekeyed_ms', now)
    return 'rekeyed'
    """#)

    func run(issuer: String, now: Date) throws(StoreError) -> Outcome {
        let marker = try RedisStoreCalls.hash(client, prefix + ViewerKeyScheme.redisMarker)
        if marker["scheme"] == ViewerKeyScheme.issuerAndSubject.rawValue {
            return .already(rekeyedIssuer: marker["rekeyed_issuer"])
        }
        func new(_ key: String) -> String { Identity.storeKey(issuer: issuer, subjectKey: key) }
        var counts = StoreRekey.Counts()
        var renames: [(String, String)] = []
        var fields: [(String, String, String)] = []
        var members: [(String, String)] = []

        let hashes: [(String, WritableKeyPath<StoreRekey.Counts, Int>)] = [("session:", \.sessions),
                                                                          ("offline:license:", \.offlineLicenses)]
        for (kind, count) in hashes {
            for key in try scan(kind) {
                guard let old = try RedisStoreCalls.command(client, ["HGET", key, "viewer"]).string else { continue }
                fields.append((key, old, new(old)))
                counts[keyPath: count] += 1
            }
        }
        for key in try scan("viewer:") {
            renames.append((key, prefix + "viewer:" + new(String(key.dropFirst((prefix + "viewer:").count)))))
        }
        for kind in ["viewer-asset:", "first-play:", "offline:viewer:"] {
            for key in try scan(kind) {
                guard let (old, asset) = Self.lengthPrefixed(key.dropFirst((prefix + kind).count)) else { continue }
                let viewer = new(old)
                renames.append((key, prefix + kind + "\(viewer.utf8.count):\(viewer):\(asset)"))
                if kind == "first-play:" { counts.firstPlays += 1 }
            }
        }
        for key in try scan("rate:") {
            let bucket = String(key.dropFirst((prefix + "rate:").count))
            guard let moved = StoreRekey.rekeyed(bucket, issuer: issuer, rateBucket: true) else { continue }
            renames.append((key, prefix + "rate:" + moved))
            members.append((bucket, moved))
            counts.rateBuckets += 1
        }

        var arguments = [prefix, issuer, String(MediaStoreTime.ms(now)), String(renames.count)]
        for (from, to) in renames { arguments += [from, to] }
        arguments.append(String(fields.count))
        for (key, old, new) in fields { arguments += [key, old, new] }
        arguments.append(String(members.count))
        for (from, to) in members { arguments += [from, to] }
        let reply = try RedisStoreCalls.evaluate(client, Self.script, keys: [], arguments: arguments)
        switch reply.string {
        case "rekeyed"?: return .rekeyed(counts)
        case "already"?: return .already(rekeyedIssuer: nil)
        case "changed"?:
            throw StoreError(.unavailable, "the store changed while it was rekeyed (is a KAS node still running?); "
                             + "nothing was written: stop every node and run it again")
        default: throw StoreError(.unavailable, "the Redis state store sent an unexpected reply")
        }
    }

    /// Every key of `kind` (after the prefix), once each (SCAN may repeat a key).
    private func scan(_ kind: String) throws(StoreError) -> Set<String> {
        // The prefix is matched literally: its glob characters are escaped.
        var pattern = ""
        for character in prefix {
            if "*?[]\\".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        pattern += kind + "*"
        var keys: Set<String> = []
        var cursor = "0"
        repeat {
            let reply = try RedisStoreCalls.command(client, ["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"])
            guard let parts = reply.array, parts.count == 2, let next = parts[0].string, let page = parts[1].array else {
                throw StoreError(.unavailable, "the Redis state store sent an unexpected SCAN reply")
            }
            keys.formUnion(page.compactMap(\.string))
            cursor = next
        } while cursor != "0"
        return keys
    }

    /// `<n>:<viewer>:<rest>` (`<n>` the viewer's length in bytes) as (viewer, rest).
    static func lengthPrefixed(_ text: Substring) -> (String, String)? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              let length = Int(String(decoding: bytes[..<colon], as: UTF8.self)), length >= 0 else { return nil }
        let start = colon + 1
        guard bytes.count > start + length, bytes[start + length] == UInt8(ascii: ":") else { return nil }
        return (String(decoding: bytes[start..<start + length], as: UTF8.self),
                String(decoding: bytes[(start + length + 1)...], as: UTF8.self))
    }
}
