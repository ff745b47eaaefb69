import Foundation
import MediaDRMMedia

/// The media service's state: sessions, first-play records, per-asset stream limits learned from
/// verified manifests, and rate-limit buckets. `SQLiteMediaStore` (one node, the default) and
/// `RedisMediaStore` (nodes sharing one Redis) give the same answers to the same calls. Any
/// implementation must keep its atomicity: every read-check-write (`startSession`'s count and
/// insert, `consumeRateToken`'s read and write, …) is one atomic step, across processes too.
/// Expiry is judged against the `now` passed in (the KAS clock), with millisecond precision
/// (`MediaStoreTime`). Failures throw `StoreError`; an unreachable store is `.unavailable`.
///
/// Viewers are given to the store as opaque keys (`Identity.storeKey`, a hash of the token's
/// issuer and subject), sessions by the SHA-256 of their id (`MediaSessionID.hash`): a stolen database
/// yields neither subjects nor usable session ids.
public protocol MediaStore: Sendable {
    /// Admits and inserts a session unless `limit` live playbacks of this viewer and asset
    /// already exist (a session of an already live playback always joins it), or the viewer has
    /// `maxLiveSessionsPerViewer` live sessions in all. A playback holds at most one live session
    /// per component: a session that names its component ends the live sessions of the same
    /// playback bound to it (`replaced` counts them). The store's `RecordBounds` hold too: the
    /// viewer's oldest ended sessions beyond its share are dropped, and a store holding its
    /// bound of sessions drops the oldest ended ones of anyone to make room, or answers
    /// `storeFull` when all are live. Count, replacement, drops and insert are one transaction.
    func startSession(_ session: NewMediaSession, limit: Int?, maxLiveSessionsPerViewer: Int,
                      now: Date) throws(StoreError) -> SessionStartOutcome
    /// The session, live or not; nil when unknown.
    func session(idHash: String) throws(StoreError) -> MediaSessionRecord?
    /// Extends a live session owned by `viewer` to `now + timeout`; nil when it is unknown,
    /// ended, expired or someone else's.
    func heartbeat(idHash: String, viewer: String, now: Date, timeout: TimeInterval) throws(StoreError) -> MediaSessionRecord?
    /// Ends a live session owned by `viewer`; false when there was none.
    func endSession(idHash: String, viewer: String, now: Date) throws(StoreError) -> Bool
    /// Ties a session to the component its first key request asked for (it had none, or already
    /// this one) and ends the other live sessions of its playback bound to that component, in
    /// one transaction; `.conflict` when the session is bound to another component.
    func bindComponent(idHash: String, component: String, now: Date) throws(StoreError) -> ComponentBinding
    /// The position (0-based) of `playback` among the viewer's live playbacks of `asset`, oldest
    /// first; nil when it has no live session.
    func playbackRank(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int?
    /// Live sessions across all viewers (the active-sessions gauge).
    func liveSessionCount(now: Date) throws(StoreError) -> Int
    /// Ends every live session of one viewer's playback of an asset (`viewer` is
    /// `Identity.storeKey`, `playback` the store's playback key) in one step, so its stream-limit
    /// slot is free at once; returns how many.
    func endPlaybackSessions(viewer: String, asset: String, playback: String, now: Date) throws(StoreError) -> Int

    /// When the first key of `asset` was delivered to `viewer`, if ever.
    func firstPlay(viewer: String, asset: String) throws(StoreError) -> Date?
    /// Records the first key delivery unless one is recorded; returns the recorded time.
    @discardableResult
    func recordFirstPlay(viewer: String, asset: String, at time: Date) throws(StoreError) -> Date

    /// The stream limit the asset's verified policy declared, as last seen.
    func assetStreamLimit(asset: String) throws(StoreError) -> Int?
    func setAssetStreamLimit(asset: String, limit: Int?, now: Date) throws(StoreError)

    /// Takes one token from `key`'s bucket (`perMinute` tokens, refilled continuously).
    func consumeRateToken(key: String, perMinute: Int, now: Date) throws(StoreError) -> RateLimitDecision

    /// Deletes sessions that ended or expired before `olderThan` and full rate buckets; an
    /// implementation may delete a bounded batch per call and leave the rest to later calls.
    func prune(olderThan: Date, now: Date) throws(StoreError)
}

/// A session to insert.
public struct NewMediaSession: Sendable, Equatable {
    public var idHash: String
    public var viewer: String
    public var asset: String
    public var component: String?
    public var `protocol`: MediaProtocol
    /// The client's playback id, or a value unique to this session when it sent none.
    public var playback: String
    /// The device report as compact JSON, if any.
    public var device: String?
    public var timeout: TimeInterval

    public init(idHash: String, viewer: String, asset: String, component: String? = nil,
                protocol: MediaProtocol, playback: String, device: String? = nil, timeout: TimeInterval) {
        self.idHash = idHash
        self.viewer = viewer
        self.asset = asset
        self.component = component
        self.protocol = `protocol`
        self.playback = playback
        self.device = device
        self.timeout = timeout
    }
}

public enum SessionStartOutcome: Sendable, Equatable {
    /// Started; `replaced` live sessions of the same playback and component were ended for it.
    case started(MediaSessionRecord, replaced: Int)
    /// `limit` playbacks of this asset are live for the viewer.
    case concurrencyLimit
    /// The viewer holds too many live sessions overall.
    case tooManySessions
    /// The store holds its bound of sessions and not one of them has ended (`RecordBounds`):
    /// no live session is dropped to make room.
    case storeFull
}

/// What binding a session to a component did.
public enum ComponentBinding: Sendable, Equatable {
    /// The session holds the component; `replaced` other live sessions of its playback held it
    /// and were ended.
    case bound(replaced: Int)
    /// The session is bound to another component.
    case conflict
}

/// A stored session. Times have millisecond precision.
public struct MediaSessionRecord: Sendable, Equatable {
    public var idHash: String
    public var viewer: String
    public var asset: String
    public var component: String?
    public var `protocol`: MediaProtocol
    public var playback: String
    public var device: String?
    public var created: Date
    public var lastHeartbeat: Date
    public var expires: Date
    public var ended: Date?

    public func isLive(at now: Date) -> Bool { ended == nil && expires > now }
}

public enum RateLimitDecision: Sendable, Equatable {
    case allowed
    /// Whole seconds until one token is back (at least 1).
    case limited(retryAfter: Int)
}
