import Foundation
import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON

/// The playbacks (`PlaybackStore`) in Redis, so a playback started on one node is licensed,
/// renewed and released through any other (docs/kas.md#scale-out).
///
/// Nothing in Redis names a viewer or a playback: the key is `playback:` + SHA-256 (hex) of the
/// playback id, and the identity, asset and DRM system are sealed with AES-256-GCM under a key
/// derived from the playback id (HKDF-SHA256, `PlaybackSeal`), with the Redis key as associated
/// data. A copy of Redis therefore yields no subject and no usable playback: both need the id,
/// which only the player holds (it is 128 random bits).
///
/// Data model (every key starts with `keyPrefix`, `kas:` by default):
/// - `playback:<sha256 hex of the id>` — hash: `sealed` (base64 of nonce ‖ ciphertext ‖ tag),
///   `expires_ms`, `released_ms`? The end and the release stay readable so `extend` and
///   `release` are each one script; they name nobody.
/// - `delivery:license-url-key` — string: the licence URLs' HMAC key (`licenseURLKey`).
/// Live and expired are judged against the `now` each call passes in (the KAS clock). A TTL of
/// `garbageRetention` past the playback's end, relative to the KAS clock, only collects the
/// garbage the in-memory store dropped by capacity.
final class RedisPlaybackStore: PlaybackStore {
    /// How long a playback record outlives its end before Redis deletes it (garbage collection
    /// only: expiry itself is data).
    static let garbageRetention: TimeInterval = 86_400

    private let client: RedisClient
    let keyPrefix: String

    init(client: RedisClient, keyPrefix: String = "kas:") {
        self.client = client
        self.keyPrefix = keyPrefix
    }

    func close() {}

    /// `playback:` + SHA-256 (hex) of the id, as the media store keys the playback's sessions.
    func key(_ id: String) -> String {
        keyPrefix + "playback:" + MediaSessionID.hash(id)
    }

    /// KEYS: playback hash. ARGV: sealed, expires, TTL in milliseconds.
    private static let insertScript = RedisScript("""
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[1], 'sealed', ARGV[1], 'expires_ms', ARGV[2])
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        return 1
        """)

    /// KEYS: playback hash. ARGV: now. 0 unless live.
    private static let releaseScript = RedisScript("""
        local f = redis.call('HMGET', KEYS[1], 'expires_ms', 'released_ms')
        if not f[1] or f[2] or tonumber(f[1]) <= tonumber(ARGV[1]) then return 0 end
        redis.call('HSET', KEYS[1], 'released_ms', ARGV[1])
        return 1
        """)

    /// KEYS: playback hash. ARGV: new end, TTL in milliseconds. Never shortens, never revives a
    /// released playback.
    private static let extendScript = RedisScript("""
        local f = redis.call('HMGET', KEYS[1], 'expires_ms', 'released_ms')
        if not f[1] or f[2] then return 0 end
        if tonumber(ARGV[1]) > tonumber(f[1]) then
          redis.call('HSET', KEYS[1], 'expires_ms', ARGV[1])
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 1
        """)

    /// KEYS: the licence URL key. ARGV: a fresh key (base64), kept only when none is stored.
    private static let licenseURLKeyScript = RedisScript("""
        redis.call('SET', KEYS[1], ARGV[1], 'NX')
        return redis.call('GET', KEYS[1])
        """)

    /// The first node to ask stores a random key (`SET NX`); every node reads the same one. It
    /// lets its holder sign licence URLs, but a URL names a playback id, which Redis does not
    /// hold (only its SHA-256), and works only while that playback is live.
    func licenseURLKey() throws(StoreError) -> SecretKey {
        let fresh: SecretKey
        do {
            fresh = try LicenseURLSigner.randomKey()
        } catch {
            throw StoreError(.unavailable, "the system random generator is unavailable")
        }
        let candidate = fresh.withUnsafeBytes { Base64.encode(Data($0)) }
        let stored = try RedisStoreCalls.evaluate(client, Self.licenseURLKeyScript, keys: [keyPrefix + "delivery:license-url-key"],
                                                  arguments: [candidate])
        guard let text = stored.string, let bytes = try? Base64.decode(text), bytes.count == LicenseURLSigner.keyByteCount else {
            throw StoreError(.unavailable, "the stored licence URL key is unreadable")
        }
        return SecretKey(data: bytes)
    }

    func insert(_ playback: PlaybackRecord, now: Date) throws(StoreError) {
        let key = key(playback.id)
        let sealed = try PlaybackSeal.seal(playback, storageKey: key)
        _ = try RedisStoreCalls.evaluate(client, Self.insertScript, keys: [key], arguments: [
            sealed, String(MediaStoreTime.ms(playback.expires)), Self.timeToLive(until: playback.expires, now: now),
        ])
    }

    func live(_ id: String, now: Date) throws(StoreError) -> PlaybackRecord? {
        let key = key(id)
        let fields = try RedisStoreCalls.hash(client, key)
        guard let sealed = fields["sealed"], let expiresMs = fields["expires_ms"].flatMap({ Int64($0) }),
              fields["released_ms"] == nil
        else { return nil }
        let playback = try PlaybackSeal.open(sealed, id: id, storageKey: key, expires: MediaStoreTime.date(expiresMs))
        return playback.isLive(at: now) ? playback : nil
    }

    func release(_ id: String, viewer: String, now: Date) throws(StoreError) -> PlaybackRecord? {
        // The viewer is inside the seal: check it here, then release in one script that checks
        // liveness again (another node may have released it in between).
        guard var playback = try live(id, now: now), playback.viewer.storeKey == viewer else { return nil }
        let released = try RedisStoreCalls.evaluate(client, Self.releaseScript, keys: [key(id)],
                                                    arguments: [String(MediaStoreTime.ms(now))])
        guard released.int == 1 else { return nil }
        playback.released = true
        return playback
    }

    func extend(_ id: String, to expires: Date, now: Date) throws(StoreError) {
        _ = try RedisStoreCalls.evaluate(client, Self.extendScript, keys: [key(id)], arguments: [
            String(MediaStoreTime.ms(expires)), Self.timeToLive(until: expires, now: now),
        ])
    }

    /// Milliseconds from `now` (the KAS clock) to `garbageRetention` past `expires`, at least one
    /// retention: relative, so a KAS clock apart from Redis's never deletes a live playback.
    private static func timeToLive(until expires: Date, now: Date) -> String {
        let remaining = max(0, expires.timeIntervalSince(now))
        return String(Int64(((remaining + garbageRetention) * 1000).rounded(.up)))
    }
}
