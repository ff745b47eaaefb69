import Foundation
import MediaDRMCrypto

/// The playbacks `POST /media/v1/playback` started (docs/delivery.md#playbacks): who (the
/// verified token's claims, which the FairPlay licence URL needs because its caller sends no
/// token), which asset and DRM system, until when, and whether it was released.
///
/// Both stores keep them durably and sealed (`PlaybackSeal`: only the playback id, which only
/// the player holds, opens a record; the store keeps its SHA-256 and the viewer's store key):
/// one node in the data directory's SQLite file (`SQLitePlaybackStore`), so a restart loses no
/// live playback; several nodes in Redis (`RedisPlaybackStore`), so a playback started on one
/// node is renewed, released and licensed through any other. Both hold `RecordBounds` and a
/// per-viewer cap of live playbacks, and end a released playback's media sessions in the same
/// step. Expiry is always compared with the `now` the KAS passes in, never left to the
/// backend's clock.
package protocol PlaybackStore: Sendable {
    /// Stores a new playback unless one of its id is stored (`duplicate`), its viewer holds `maxLivePerViewer` live playbacks, or the
    /// store holds its bound of playbacks and every one is live; drops the viewer's oldest
    /// ended playbacks past its share and, at the bound, the oldest ended of anyone
    /// (`RecordBounds`). One atomic step.
    func insert(_ playback: PlaybackRecord, maxLivePerViewer: Int, now: Date) throws(StoreError) -> PlaybackInsertOutcome
    /// Deletes a playback (its first session was refused: nothing of it stays).
    func remove(_ id: String) throws(StoreError)
    /// The playback while it is live (not released, not expired).
    func live(_ id: String, now: Date) throws(StoreError) -> PlaybackRecord?
    /// Marks a live playback of `viewer` (store key) released and ends every live media session
    /// of it, in one step, so its stream slot is free at once; nil when there is none.
    func release(_ id: String, viewer: String, now: Date) throws(StoreError) -> ReleasedPlayback?
    /// Moves a playback's end to at least `expires` unless it was released.
    func extend(_ id: String, to expires: Date, now: Date) throws(StoreError)
    /// Deletes playbacks that ended (released or expired) before `olderThan`; an implementation
    /// may delete a bounded batch per call and leave the rest to later calls.
    func prune(olderThan: Date) throws(StoreError)
    /// The key of the FairPlay licence URLs' signatures (`LicenseURLSigner`): kept by the store
    /// (a file in the data directory, or the shared Redis), so a URL handed out before a
    /// restart, or by another node, still works.
    func licenseURLKey() throws(StoreError) -> SecretKey
    func close()
}

/// What inserting a playback did.
package enum PlaybackInsertOutcome: Sendable, Equatable {
    case inserted
    /// The viewer holds `maxLivePerViewer` live playbacks.
    case tooManyPlaybacks
    /// The store holds its bound of playbacks and not one of them has ended.
    case storeFull
    /// A playback of this id is stored already, live or ended (the delivery API's `processSpcUrl`
    /// names its playback before it starts: a released one is not started again).
    case duplicate
}

/// A playback `release` ended, with the number of its media sessions that were live.
package struct ReleasedPlayback: Sendable, Equatable {
    let playback: PlaybackRecord
    let endedSessions: Int
}

/// One playback as the store keeps it.
package struct PlaybackRecord: Sendable, Equatable {
    let id: String
    let identity: Identity
    let assetID: String
    let drmSystem: DeliveryDRMSystem
    var expires: Date
    var released = false
    var viewer: Identity { identity }

    /// How long a playback outlives its newest media URL: a player learns that a URL expired
    /// from the origin's 403, after the fact, and must still be able to renew it.
    static let renewalGrace: TimeInterval = 600
    /// How long a record is kept after it ended, before `prune` deletes it.
    static let retention: TimeInterval = 86_400

    /// Live at `now`: not released and not yet expired.
    func isLive(at now: Date) -> Bool { !released && expires > now }
}

/// A playback as a store holds it, still sealed: what `kas store migrate` copies from the
/// SQLite store into Redis without opening it (it has no playback id).
package struct SealedPlayback: Sendable, Equatable {
    /// SHA-256 (hex) of the playback id.
    let idHash: String
    /// The viewer's store key (`Identity.storeKey`).
    let viewer: String
    /// `PlaybackSeal.seal`'s text.
    let sealed: String
    let created: Date
    let expires: Date
    let released: Date?
}
