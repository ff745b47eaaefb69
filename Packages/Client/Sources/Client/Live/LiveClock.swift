import Foundation

/// The clocks a live playback reads (docs/live.md, "The player"): the wall clock that
/// `EXT-X-PROGRAM-DATE-TIME` is measured against for latency, and a monotonic clock with a
/// blocking sleep for the playlist reload schedule. Injected so that reload schedules are tested
/// without real sleeps.
public protocol LiveClock: Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    func unixTime() -> Double
    /// Monotonic seconds from an arbitrary origin.
    func now() -> Double
    /// Blocks the calling thread until `now()` is at or after `deadline`.
    func sleep(until deadline: Double)
}

/// The process's clocks.
public struct SystemLiveClock: LiveClock {
    private let monotonic = SystemPlaybackClock()

    public init() {}

    public func unixTime() -> Double { Date().timeIntervalSince1970 }

    public func now() -> Double { monotonic.now() }

    public func sleep(until deadline: Double) {
        let remaining = deadline - now()
        if remaining > 0 { Thread.sleep(forTimeInterval: remaining) }
    }
}
