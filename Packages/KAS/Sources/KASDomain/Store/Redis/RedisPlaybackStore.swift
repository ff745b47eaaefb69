import Foundation
import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding

/// The playbacks (`PlaybackStore`) in Redis, so a playback started on one node is licensed,
/// renewed and released through any other (docs/kas.md#scale-out).
///
/// Nothing in Redis names a viewer's subject or a playback: the key is `playback:` + SHA-256
/// (hex) of the playback id, and the identity, asset and DRM system are sealed with AES-256-GCM
/// under a key derived from the playback id (HKDF-SHA256, `PlaybackSeal`), with the Redis key as
/// associated data. A copy of Redis therefore yields no subject and no usable playback: both
/// need the id, which only the player holds (it is 128 random bits).
///
/// Data model (every key starts with `keyPrefix`, `kas:` by default):
/// - `playback:<sha256 hex of the id>` — hash: `sealed` (base64 of nonce ‖ ciphertext ‖ tag),
///   `viewer` (the store key, `Identity.storeKey`), `created_ms`, `expires_ms`, `released_ms`?
///   The end, the release and the viewer key stay readable so that the cap, the bounds,
///   `extend` and `release` are each one script.
/// - `playbacks-live` (not released, by end) and `playbacks-released` (by release time) —
///   sorted sets of every playback: what the total bound counts and drops from, and what
///   `prune` walks.
/// - `viewer-playbacks:<viewer>` and `viewer-playbacks-released:<viewer>` — the same per
///   viewer: the live cap counts the first above `now`, the per-viewer bound drops from both.
/// - `delivery:license-url-key` — string: the licence URLs' HMAC key (`licenseURLKey`).
/// Live and expired are judged against the `now` each call passes in (the KAS clock); no key has
/// a TTL. Releasing a playback ends its media sessions in the same script (the media store's
/// keys, same prefix), so its stream slot is free at once.
final class RedisPlaybackStore: PlaybackStore {
    private let client: RedisClient
    let keyPrefix: String
    /// How many playbacks the store keeps, per viewer and in all (every node should pass the same).
    let bounds: RecordBounds

    init(client: RedisClient, keyPrefix: String = "kas:", bounds: RecordBounds = .playbacks()) {
        self.client = client
        self.keyPrefix = keyPrefix
        self.bounds = bounds
    }

    func close() {}

    /// `playback:` + SHA-256 (hex) of the id, as the media store keys the playback's sessions.
    func key(_ id: String) -> String { PlaybackSeal.storageKey(id: id, prefix: keyPrefix) }

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
        return try importLicenseURLKey(fresh)
    }

    /// Stores `candidate` as the licence URL key unless one is stored; returns the stored one.
    /// `kas store migrate` offers the single node's key, so the URLs it handed out keep working
    /// unless nodes drew a key of their own first.
    @discardableResult
    func importLicenseURLKey(_ candidate: SecretKey) throws(StoreError) -> SecretKey {
        let stored = try evaluate(Scripts.licenseURLKey, [candidate.withUnsafeBytes { Base64.encode(Data($0)) }])
        guard let text = stored.string, let bytes = try? Base64.decode(text), bytes.count == LicenseURLSigner.keyByteCount else {
            throw StoreError(.unavailable, "the stored licence URL key is unreadable")
        }
        return SecretKey(data: bytes)
    }

    func insert(_ playback: PlaybackRecord, maxLivePerViewer: Int, now: Date) throws(StoreError) -> PlaybackInsertOutcome {
        let sealed = try PlaybackSeal.seal(playback, storageKey: key(playback.id))
        let reply = try evaluate(Scripts.insert, [
            MediaSessionID.hash(playback.id), playback.viewer.storeKey, sealed, String(MediaStoreTime.ms(now)),
            String(MediaStoreTime.ms(playback.expires)), String(maxLivePerViewer), String(bounds.endedPerViewer),
            String(bounds.total), String(RecordBounds.dropBatch),
        ])
        switch reply.string {
        case "inserted"?: return .inserted
        case "too-many"?: return .tooManyPlaybacks
        case "full"?: return .storeFull
        case "duplicate"?: return .duplicate
        default: throw StoreError(.unavailable, "the Redis state store sent an unexpected reply")
        }
    }

    func remove(_ id: String) throws(StoreError) {
        _ = try evaluate(Scripts.remove, [MediaSessionID.hash(id)])
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

    func release(_ id: String, viewer: String, now: Date) throws(StoreError) -> ReleasedPlayback? {
        // The asset is inside the seal: open it here, then release and end the sessions in one
        // script that checks liveness and the viewer again (another node may have released it).
        guard var playback = try live(id, now: now), playback.viewer.storeKey == viewer else { return nil }
        let ended = try evaluate(Scripts.release, [
            MediaSessionID.hash(id), viewer, playback.assetID, MediaSessionID.playbackKey(clientPlaybackID: id),
            String(MediaStoreTime.ms(now)),
        ]).int
        guard let ended, ended >= 0 else { return nil }
        playback.released = true
        return ReleasedPlayback(playback: playback, endedSessions: Int(ended))
    }

    func extend(_ id: String, to expires: Date, now: Date) throws(StoreError) {
        _ = try evaluate(Scripts.extend, [MediaSessionID.hash(id), String(MediaStoreTime.ms(expires))])
    }

    func prune(olderThan: Date) throws(StoreError) {
        _ = try evaluate(Scripts.prune, [String(MediaStoreTime.ms(olderThan)), String(RedisMediaStore.pruneBatch)])
    }

    // MARK: Migration

    /// Copies a playback exported from the SQLite store (`SQLitePlaybackStore.exportPlaybacks`),
    /// sealed as it is: it opens here under the default prefix's key. Idempotent: a stored id is
    /// left as it is.
    func importPlayback(_ playback: SealedPlayback) throws(StoreError) {
        _ = try evaluate(Scripts.importPlayback, [
            playback.idHash, playback.viewer, playback.sealed, String(MediaStoreTime.ms(playback.created)),
            String(MediaStoreTime.ms(playback.expires)),
            RedisMediaStore.optional(playback.released.map { String(MediaStoreTime.ms($0)) }),
        ])
    }

    /// Runs one script with the key prefix first; a `RedisError` is `StoreError(.unavailable)`.
    private func evaluate(_ script: RedisScript, _ arguments: [String]) throws(StoreError) -> RESPValue {
        try RedisStoreCalls.evaluate(client, script, keys: [], arguments: [keyPrefix] + arguments)
    }
}
