import Foundation

/// The per-viewer rewrap rate limit (`limits.rewrapRequestsPerMinute`): one token per rewrap
/// request on `/kas/v2/rewrap` or Connect `Rewrap`, whatever the number of key access objects
/// in it, so a bulk rewrap for a long tdf-hls title costs one. Buckets live in the media store
/// under `rewrap:<viewer store key>`, apart from the media key-request buckets.
package struct RewrapRateLimit: Sendable {
    public let perMinute: Int
    let store: any MediaStore
    let clock: @Sendable () -> Date

    public init(perMinute: Int, store: any MediaStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.perMinute = perMinute
        self.store = store
        self.clock = clock
    }

    /// Takes a token for `viewer`'s request (its bucket is its issuer and subject's);
    /// `.rateLimited` (429, `resource_exhausted` in Connect) with `retryAfter` when the bucket is empty.
    package func consume(viewer: Identity) throws(OpenTDFError) {
        let decision: RateLimitDecision
        do {
            decision = try store.consumeRateToken(key: "rewrap:" + viewer.storeKey,
                                                  perMinute: perMinute, now: clock())
        } catch {
            throw OpenTDFError(.internalFailure, "state store unavailable")
        }
        if case .limited(let seconds) = decision {
            var error = OpenTDFError(.rateLimited, "too many rewrap requests; retry after \(seconds) s")
            error.retryAfter = seconds
            throw error
        }
    }
}
