// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// Monotonic time for leases, renewals and heartbeats, in seconds from an arbitrary origin.
/// Injected so that renewal timing can be tested without waiting.
public protocol PlaybackClock: Sendable {
    func now() -> Double
    /// Returns at or after `deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Double) async throws
}

/// The process's monotonic clock.
public struct SystemPlaybackClock: PlaybackClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let elapsed = ContinuousClock.now - origin
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    public func sleep(until deadline: Double) async throws {
        let remaining = deadline - now()
        guard remaining > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((remaining * 1000).rounded(.up))))
    }
}

/// fps-v2 §10.6: a renewal is due at max(lease − 120 s, lease / 2) after the delivery that
/// carried the lease.
public enum LeaseSchedule {
    public static func renewalDelay(leaseSeconds: Int) -> Double {
        max(Double(leaseSeconds) - 120, Double(leaseSeconds) / 2)
    }
}
