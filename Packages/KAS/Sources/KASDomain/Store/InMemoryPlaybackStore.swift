import Foundation
import MediaDRMCrypto
import Synchronization

/// The playbacks of a single node, in memory (the SQLite mode's `PlaybackStore`). Not stored on
/// disk: the database never holds a subject (`Identity.storeKey`), and a restarted KAS refuses
/// the licence URLs and renewals of earlier playbacks (players start a new one) while their
/// media sessions run out on their own timeout.
final class InMemoryPlaybackStore: PlaybackStore {
    /// Playbacks held at once; the oldest-expiring are dropped first beyond it.
    static let capacity = 100_000
    private let playbacks = Mutex<[String: PlaybackRecord]>([:])
    /// Drawn when the store is made and never written anywhere: a restart invalidates every
    /// licence URL, as it forgets every playback.
    private let urlKey: SecretKey

    init() throws(StoreError) {
        do {
            urlKey = try LicenseURLSigner.randomKey()
        } catch {
            throw StoreError(.unavailable, "the system random generator is unavailable")
        }
    }

    func insert(_ playback: PlaybackRecord, now: Date) {
        playbacks.withLock { all in
            if all.count >= Self.capacity {
                all = all.filter { $0.value.isLive(at: now) }
                while all.count >= Self.capacity, let oldest = all.min(by: { $0.value.expires < $1.value.expires }) {
                    all[oldest.key] = nil
                }
            }
            all[playback.id] = playback
        }
    }

    func live(_ id: String, now: Date) -> PlaybackRecord? {
        playbacks.withLock { all in
            guard let playback = all[id], playback.isLive(at: now) else { return nil }
            return playback
        }
    }

    func release(_ id: String, viewer: String, now: Date) -> PlaybackRecord? {
        playbacks.withLock { all in
            guard var playback = all[id], playback.isLive(at: now), playback.viewer.storeKey == viewer else { return nil }
            playback.released = true
            all[id] = playback
            return playback
        }
    }

    func extend(_ id: String, to expires: Date, now: Date) {
        playbacks.withLock { all in
            guard var playback = all[id], !playback.released else { return }
            playback.expires = max(playback.expires, expires)
            all[id] = playback
        }
    }

    func licenseURLKey() -> SecretKey { urlKey }

    func close() {}
}
