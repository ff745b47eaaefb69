import Foundation
import Synchronization

/// The playbacks `POST /media/v1/playback` started, held in memory: who (the verified token's
/// claims, which the FairPlay licence URL needs because its caller sends no token), which asset
/// and DRM system, until when, and whether it was released. Not stored: the database never
/// holds a subject (`Identity.storeKey`), and a restarted KAS refuses the licence URLs and
/// renewals of earlier playbacks (players start a new one) while their media sessions run out
/// on their own timeout.
final class PlaybackRegistry: Sendable {
    struct Playback: Sendable {
        let id: String
        let identity: Identity
        let assetID: String
        let drmSystem: DeliveryDRMSystem
        var expires: Date
        var released = false
        var viewer: Identity { identity }
    }

    /// How long a playback outlives its newest media URL: a player learns that a URL expired
    /// from the origin's 403, after the fact, and must still be able to renew it.
    static let renewalGrace: TimeInterval = 600

    /// Playbacks held at once; the oldest-expiring are dropped first beyond it.
    static let capacity = 100_000
    private let playbacks = Mutex<[String: Playback]>([:])

    func insert(_ playback: Playback, now: Date) {
        playbacks.withLock { all in
            if all.count >= Self.capacity {
                all = all.filter { $0.value.expires > now && !$0.value.released }
                while all.count >= Self.capacity, let oldest = all.min(by: { $0.value.expires < $1.value.expires }) {
                    all[oldest.key] = nil
                }
            }
            all[playback.id] = playback
        }
    }

    /// The playback while it is live (not released, not expired).
    func live(_ id: String, now: Date) -> Playback? {
        playbacks.withLock { all in
            guard let playback = all[id], !playback.released, playback.expires > now else { return nil }
            return playback
        }
    }

    /// Marks a live playback of `viewer` (store key) released; nil when there is none.
    func release(_ id: String, viewer: String, now: Date) -> Playback? {
        playbacks.withLock { all in
            guard var playback = all[id], !playback.released, playback.expires > now,
                  playback.viewer.storeKey == viewer else { return nil }
            playback.released = true
            all[id] = playback
            return playback
        }
    }

    /// Moves a live playback's end to at least `expires`.
    func extend(_ id: String, to expires: Date) {
        playbacks.withLock { all in
            guard var playback = all[id], !playback.released else { return }
            playback.expires = max(playback.expires, expires)
            all[id] = playback
        }
    }
}

/// The DRM systems a playback asks for (docs/delivery.md): FairPlay (raw SPC/CKC licence URL),
/// the open TDF path (`/media/v1` key requests or `/kas/v2` rewraps), ClearKey (the web player).
public enum DeliveryDRMSystem: String, Sendable, Equatable, CaseIterable {
    case fairplay
    case tdf
    case clearkey
}
