// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// Reporting rules (fps-v2 §10.6, as AVContentKeySession users expect): `onKeyDelivered` at
/// most once, when every component's key is in hand and accepted; `onKeyFailed` at most once,
/// at the first failure; never both; nothing for renewals.
public protocol ContentKeySessionDelegate: AnyObject, Sendable {
    func onKeyDelivered(components: [String])
    func onKeyFailed(error: PlaybackError)
}

/// Enforces the reporting rules whatever order the components' answers arrive in: the first
/// report wins and every later one is dropped.
final class KeyDeliveryReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var reported = false
    private let delegate: (any ContentKeySessionDelegate)?

    init(delegate: (any ContentKeySessionDelegate)?) {
        self.delegate = delegate
    }

    private func claim() -> Bool {
        lock.withLock {
            if reported { return false }
            reported = true
            return true
        }
    }

    func delivered(_ components: [String]) {
        guard claim() else { return }
        delegate?.onKeyDelivered(components: components)
    }

    func failed(_ error: PlaybackError) {
        guard claim() else { return }
        delegate?.onKeyFailed(error: error)
    }
}

/// Whether the keys in hand may still be used, read by the output loop before each segment:
/// not after a failure, a stop, a server-ended session or a lease that ran out.
public final class KeyValidity: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: any PlaybackClock
    private var failure: PlaybackError?
    private var leaseEnds: [String: Double] = [:]

    init(clock: any PlaybackClock) {
        self.clock = clock
    }

    /// Throws the reason the keys may no longer be used.
    public func check() throws(PlaybackError) {
        let now = clock.now()
        let failure: PlaybackError? = lock.withLock {
            if let failure = self.failure { return failure }
            if leaseEnds.values.contains(where: { $0 <= now }) {
                self.failure = PlaybackError(.leaseLapsed, "a content key's lease ran out before it was renewed")
            }
            return self.failure
        }
        if let failure { throw failure }
    }

    public var currentFailure: PlaybackError? { lock.withLock { failure } }

    /// Records the first failure only.
    func fail(_ error: PlaybackError) {
        lock.withLock { if failure == nil { failure = error } }
    }

    func setLeaseEnd(_ component: String, _ end: Double?) {
        lock.withLock { leaseEnds[component] = end }
    }
}
