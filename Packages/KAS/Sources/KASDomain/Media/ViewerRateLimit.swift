import Foundation

/// The per-viewer request budgets the media routes keep (docs/kas.md "Configuration"): one
/// media-store bucket per viewer and kind (`MediaStore.consumeRateToken`, refilled over a
/// minute), so nodes sharing a store count one window together. A request is counted before
/// anything else is read or written, so a flood costs one bucket write per request.
///
/// Session and playback starts have budgets of their own because a start followed at once by
/// its end never holds a stream: the stream limits cannot stop such a loop, while each turn
/// leaves an ended record behind (docs/kas.md "Capacity plan").
package enum ViewerRateLimit: String, Sendable, CaseIterable {
    /// `/media/v1/key-request`, the media rewrap and offline licences and their renewals
    /// (`rateLimits.keyRequestsPerMinute`): a licence carries every content key of its title, so
    /// it costs at least what one key request does, and a bucket of its own would double what a
    /// viewer may take.
    case keyRequest = "key"
    /// `/media/v1/session/start` (`rateLimits.sessionStartsPerMinute`).
    case sessionStart = "session-start"
    /// `/media/v1/playback` (`rateLimits.playbackStartsPerMinute`); the playback's own session
    /// start is not counted again.
    case playbackStart = "playback-start"
    /// `GET /media/v1/catalog`: a bucket of its own at the playback-start rate
    /// (`rateLimits.playbackStartsPerMinute`), since a viewer looks at the catalog about as often
    /// as it starts a playback, and browsing must not spend the starts.
    case catalog = "catalog"

    /// The bucket of `viewer` (`Identity.storeKey`), apart from every other kind's.
    func bucket(viewer: String) -> String { rawValue + ":" + viewer }
}

extension MediaService {
    /// Takes one token from the viewer's `limit` bucket; `.rateLimited` (429 with Retry-After)
    /// when it is empty, `.unavailable(.store)` when the store cannot answer.
    package func consumeRateToken(_ limit: ViewerRateLimit, viewer: Identity, now: Date) throws(MediaFailure) {
        let perMinute = switch limit {
        case .keyRequest: configuration.keyRequestsPerMinute
        case .sessionStart: configuration.sessionStartsPerMinute
        case .playbackStart, .catalog: configuration.playbackStartsPerMinute
        }
        let decision: RateLimitDecision
        do {
            decision = try store.consumeRateToken(key: limit.bucket(viewer: viewer.storeKey), perMinute: perMinute, now: now)
        } catch {
            throw .unavailable(.store)
        }
        if case .limited(let retryAfter) = decision { throw .rateLimited(retryAfter: retryAfter) }
    }
}
