import Foundation
import MediaDRMCrypto

/// The playbacks `POST /media/v1/playback` started (docs/delivery.md#playbacks): who (the
/// verified token's claims, which the FairPlay licence URL needs because its caller sends no
/// token), which asset and DRM system, until when, and whether it was released.
///
/// One node keeps them in memory (`InMemoryPlaybackStore`): a restarted KAS refuses the licence
/// URLs and renewals of earlier playbacks (players start a new one). Several nodes share them in
/// Redis (`RedisPlaybackStore`), sealed under a key only the playback id yields, so a playback
/// started on one node is renewed, released and licensed through any other. Expiry is always
/// compared with the `now` the KAS passes in, never left to the backend's clock.
package protocol PlaybackStore: Sendable {
    /// Stores a new playback.
    func insert(_ playback: PlaybackRecord, now: Date) throws(StoreError)
    /// The playback while it is live (not released, not expired).
    func live(_ id: String, now: Date) throws(StoreError) -> PlaybackRecord?
    /// Marks a live playback of `viewer` (store key) released; nil when there is none.
    func release(_ id: String, viewer: String, now: Date) throws(StoreError) -> PlaybackRecord?
    /// Moves a playback's end to at least `expires` unless it was released.
    func extend(_ id: String, to expires: Date, now: Date) throws(StoreError)
    /// The key of the FairPlay licence URLs' signatures (`LicenseURLSigner`): the same on every
    /// node that shares this store, so a URL one node handed out works on every other.
    func licenseURLKey() throws(StoreError) -> SecretKey
    func close()
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

    /// Live at `now`: not released and not yet expired.
    func isLive(at now: Date) -> Bool { !released && expires > now }
}
