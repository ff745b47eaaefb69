import Foundation
import Synchronization

/// At most one fetch per `interval` (30 s) for tokens that name a `kid` the issuer's key set does
/// not hold: a provider that rotated is seen at once, while a flood of tokens with random `kid`s
/// costs the provider one request per interval.
package final class UnknownKeyRefetchLimiter: Sendable {
    package static let defaultInterval: TimeInterval = 30

    private let interval: TimeInterval
    private let lastRefetch = Mutex<Date?>(nil)

    package init(interval: TimeInterval = UnknownKeyRefetchLimiter.defaultInterval) {
        self.interval = interval
    }

    /// True, and the refetch recorded, when none happened within the interval before `now`.
    package func permit(at now: Date) -> Bool {
        lastRefetch.withLock { last in
            if let last, now.timeIntervalSince(last) < interval, now >= last { return false }
            last = now
            return true
        }
    }
}
