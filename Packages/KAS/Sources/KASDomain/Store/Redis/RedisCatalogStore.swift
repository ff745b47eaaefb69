import Foundation
import KASRedis
import MediaDRMEncoding
import MediaDRMMedia

/// The catalog (`CatalogStore`) in Redis, shared by every node on the same server
/// (docs/kas.md#scale-out). The same outcomes as `SQLiteCatalog`: `put` replaces an asset's entry
/// and refuses another asset's media path or media id in one Lua script, the counterpart of
/// SQLite's `UNIQUE (media_path)` and `UNIQUE (media_id)`.
///
/// Data model (every key starts with `keyPrefix`, `kas:` by default):
/// - `catalog:asset:<asset id>` — hash: `title`, `duration_ms`, `profile`, `components` (comma
///   separated), `media_path`, `policy` (base64), `manifest`? (base64), `added_ms`, `key_ids`? and `manifests`? (`CatalogEntry.keyIDsText`,
///   `manifestsText`), `live`? (`CatalogLiveEvent.text`), `description`, `published_ms` (first catalogued; `added_ms` for a hash
///   written before it), `subtitles`? (`CatalogSubtitle.text`), `poster_path`?.
/// - `catalog:path:<media path>` — string: the asset id served there.
/// - `catalog:media:<media id>` — string: the asset id with that short id.
/// - `catalog:assets` — set of every catalogued asset id (`entries`).
///
/// Failures: every `RedisError` is `StoreError(.unavailable, …)`, which the delivery routes
/// answer 503 `state store unavailable`.
final class RedisCatalogStore: CatalogStore {
    private let client: RedisClient
    let keyPrefix: String

    init(client: RedisClient, keyPrefix: String = "kas:") {
        self.client = client
        self.keyPrefix = keyPrefix
    }

    func close() {}

    private func assetKey(_ asset: String) -> String { keyPrefix + "catalog:asset:" + asset }
    private var pathPrefix: String { keyPrefix + "catalog:path:" }
    private var mediaPrefix: String { keyPrefix + "catalog:media:" }
    private var assetsKey: String { keyPrefix + "catalog:assets" }

    /// KEYS: asset hash, path key, assets set, media id key (the prefix alone when the entry has
    /// no media id). ARGV: asset id, path key prefix, media path, media id key prefix, then the
    /// hash's field/value pairs. 0 when another asset owns the media path, 2 the media id.
    private static let putScript = RedisScript("""
        local owner = redis.call('GET', KEYS[2])
        if owner and owner ~= ARGV[1] then return 0 end
        local hasMediaID = KEYS[4] ~= ARGV[4]
        if hasMediaID then
            local holder = redis.call('GET', KEYS[4])
            if holder and holder ~= ARGV[1] then return 2 end
        end
        local old = redis.call('HGET', KEYS[1], 'media_path')
        if old and old ~= ARGV[3] then redis.call('DEL', ARGV[2] .. old) end
        local oldMediaID = redis.call('HGET', KEYS[1], 'media_id')
        if oldMediaID and ARGV[4] .. oldMediaID ~= KEYS[4] then redis.call('DEL', ARGV[4] .. oldMediaID) end
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[1], unpack(ARGV, 5))
        redis.call('SET', KEYS[2], ARGV[1])
        if hasMediaID then redis.call('SET', KEYS[4], ARGV[1]) end
        redis.call('SADD', KEYS[3], ARGV[1])
        return 1
        """)

    /// KEYS: asset hash, assets set. ARGV: asset id, path key prefix, media id key prefix. 0 when
    /// not catalogued.
    private static let removeScript = RedisScript("""
        local path = redis.call('HGET', KEYS[1], 'media_path')
        if not path then return 0 end
        if redis.call('GET', ARGV[2] .. path) == ARGV[1] then redis.call('DEL', ARGV[2] .. path) end
        local mediaID = redis.call('HGET', KEYS[1], 'media_id')
        if mediaID and redis.call('GET', ARGV[3] .. mediaID) == ARGV[1] then redis.call('DEL', ARGV[3] .. mediaID) end
        redis.call('DEL', KEYS[1])
        redis.call('SREM', KEYS[2], ARGV[1])
        return 1
        """)

    func put(_ entry: CatalogEntry, now: Date) throws(StoreError) {
        var fields = [
            "title", entry.title, "duration_ms", String(Int64((entry.duration * 1000).rounded())),
            "profile", entry.profile.rawValue, "components", entry.components.joined(separator: ","),
            "media_path", entry.mediaPath.prefix, "policy", Base64.encode(entry.policyJSON),
            "added_ms", String(MediaStoreTime.ms(now)), "description", entry.description,
            "published_ms", String(MediaStoreTime.ms(entry.publishedAt ?? now)),
        ]
        if let manifest = entry.manifest { fields += ["manifest", Base64.encode(manifest)] }
        if let keyIDs = entry.keyIDsText { fields += ["key_ids", keyIDs] }
        if let manifests = entry.manifestsText { fields += ["manifests", manifests] }
        if let live = entry.live { fields += ["live", live.text] }
        if let mediaID = entry.mediaID { fields += ["media_id", mediaID.text] }
        if let subtitles = CatalogSubtitle.text(entry.subtitles) { fields += ["subtitles", subtitles] }
        if let posters = entry.posterPath { fields += ["poster_path", posters.prefix] }
        let stored = try RedisStoreCalls.evaluate(client, Self.putScript,
                                                  keys: [assetKey(entry.assetID), pathPrefix + entry.mediaPath.prefix, assetsKey,
                                                         mediaPrefix + (entry.mediaID?.text ?? "")],
                                                  arguments: [entry.assetID, pathPrefix, entry.mediaPath.prefix, mediaPrefix] + fields)
        switch stored.int {
        case 1: return
        case 2: throw StoreError(.constraint, CatalogConflict.mediaID)
        default: throw StoreError(.constraint, CatalogConflict.mediaPath)
        }
    }

    func entry(assetID: String) throws(StoreError) -> CatalogEntry? {
        let asset = assetID.lowercased()
        return Self.entry(asset, try RedisStoreCalls.hash(client, assetKey(asset)))
    }

    func entry(mediaID: MediaID) throws(StoreError) -> CatalogEntry? {
        guard let asset = try RedisStoreCalls.command(client, ["GET", mediaPrefix + mediaID.text]).string else { return nil }
        // A hash whose media id is not this one (replaced in between) names nothing.
        return Self.entry(asset, try RedisStoreCalls.hash(client, assetKey(asset))).flatMap { $0.mediaID == mediaID ? $0 : nil }
    }

    func entries() throws(StoreError) -> [CatalogEntry] {
        let assets = try RedisStoreCalls.command(client, ["SMEMBERS", assetsKey]).array ?? []
        var entries: [CatalogEntry] = []
        for case let asset? in assets.map(\.string) {
            if let entry = Self.entry(asset, try RedisStoreCalls.hash(client, assetKey(asset))) { entries.append(entry) }
        }
        // SQLite's `ORDER BY title, asset`: byte order.
        return entries.sorted { a, b in
            a.title == b.title ? a.assetID.utf8.lexicographicallyPrecedes(b.assetID.utf8)
                : a.title.utf8.lexicographicallyPrecedes(b.title.utf8)
        }
    }

    func remove(assetID: String) throws(StoreError) -> Bool {
        let asset = assetID.lowercased()
        return try RedisStoreCalls.evaluate(client, Self.removeScript, keys: [assetKey(asset), assetsKey],
                                            arguments: [asset, pathPrefix, mediaPrefix]).int == 1
    }

    /// An entry from its hash; nil when absent or unreadable (as `SQLiteCatalog` skips a bad row).
    private static func entry(_ asset: String, _ fields: [String: String]) -> CatalogEntry? {
        guard let title = fields["title"], let durationMs = fields["duration_ms"].flatMap({ Int64($0) }),
              let profile = fields["profile"].flatMap(CatalogProfile.init(rawValue:)), let components = fields["components"],
              let path = fields["media_path"].flatMap({ try? TitlePath($0) }),
              let policy = fields["policy"].flatMap({ try? Base64.decode($0) })
        else { return nil }
        let manifest = fields["manifest"].flatMap { try? Base64.decode($0) }
        // An unreadable event makes the entry unreadable: a live title never turns into an unbounded one.
        var live: CatalogLiveEvent?
        if let liveText = fields["live"] {
            guard let event = CatalogLiveEvent(text: liveText) else { return nil }
            live = event
        }
        return CatalogEntry(assetID: asset, title: title, duration: Double(durationMs) / 1000, profile: profile,
                            components: components.split(separator: ",").map(String.init), mediaPath: path,
                            policyJSON: Data(policy), manifest: manifest.map { Data($0) },
                            keyIDs: CatalogEntry.keyIDs(text: fields["key_ids"]), manifests: CatalogEntry.manifests(text: fields["manifests"]), live: live,
                            mediaID: fields["media_id"].flatMap(MediaID.init), description: fields["description"] ?? "",
                            publishedAt: (fields["published_ms"] ?? fields["added_ms"]).flatMap { Int64($0) }.map(MediaStoreTime.date),
                            subtitles: CatalogSubtitle.list(text: fields["subtitles"]),
                            posterPath: fields["poster_path"].flatMap { try? TitlePath($0) })
    }
}
