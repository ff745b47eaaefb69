import Foundation
import Synchronization

/// A playback's signed media URL and its renewal (docs/delivery.md "Media URL renewal"): the
/// current URL is renewed through the playback API shortly before `mediaUrlExpiresAt` (a
/// quarter of its lifetime, at most 60 s, before), and at once when the origin answers 403,
/// so a title longer than one URL's validity plays without a gap. Requests check the renewal
/// time, and `DeliveredPlayback.startKeepingAlive` renews on time between requests too. A
/// renewal that fails before expiry leaves the still-valid URL in use; after a 403 the failure
/// stands.
public final class MediaURLLease: RenewableURL, @unchecked Sendable {
    public typealias Renew = @Sendable () throws(PlaybackError) -> MediaURLRenewal

    private struct State {
        var url: String
        var expiresAt: Double
        var renewAt: Double
        var renewals = 0
        var lastFailure: PlaybackError?
    }

    private let renewer: Renew
    private let now: @Sendable () -> Double
    private let state: Mutex<State>
    /// Serializes renewals, so readers that met the same expiry share one fresh URL.
    private let renewing = NSLock()

    /// - Parameters:
    ///   - now: wall-clock seconds since the Unix epoch (the expiry is a wall-clock time).
    public init(url: String, expiresAt: Double, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                renew: @escaping Renew) {
        self.renewer = renew
        self.now = now
        state = Mutex(State(url: url, expiresAt: expiresAt, renewAt: Self.renewTime(expiresAt: expiresAt, now: now())))
    }

    /// When to renew a URL valid until `expiresAt`, issued at `now`. A URL that looks expired
    /// on arrival says the two clocks disagree: it is renewed only when the origin refuses it,
    /// never on every request.
    static func renewTime(expiresAt: Double, now: Double) -> Double {
        let lifetime = expiresAt - now
        guard lifetime > 0 else { return .infinity }
        return expiresAt - min(60, lifetime / 4)
    }

    /// Renewals that succeeded so far.
    public var renewals: Int { state.withLock { $0.renewals } }

    /// Why the last renewal failed, when it did (reported with the 403 it leaves standing).
    public var lastFailure: PlaybackError? { state.withLock { $0.lastFailure } }

    public var url: String { state.withLock { $0.url } }

    /// When the current URL is due for renewal (infinity: only after a 403).
    var renewAt: Double { state.withLock { $0.renewAt } }

    /// Seconds until the current URL is due for renewal (0 when due), nil when it is renewed only
    /// after a 403.
    public var secondsUntilRenewal: Double? {
        let renewAt = state.withLock { $0.renewAt }
        guard renewAt.isFinite else { return nil }
        return max(0, renewAt - now())
    }

    /// Renews the URL now when it is due, whether or not a request is being made (a slow
    /// transfer may make no request between the renewal time and the expiry). Blocking.
    public func renewIfDue() {
        _ = currentURL()
    }

    public func currentURL() -> String {
        let (url, due) = state.withLock { ($0.url, now() >= $0.renewAt) }
        guard due else { return url }
        return renewLocked(replacing: url, proactive: true) ?? url
    }

    public func renew(after refused: String) -> String? {
        renewLocked(replacing: refused, proactive: false)
    }

    private func renewLocked(replacing old: String, proactive: Bool) -> String? {
        renewing.lock()
        defer { renewing.unlock() }
        // Another reader renewed while this one waited: its URL is the fresh one.
        let current = state.withLock { $0.url }
        if current != old { return current }
        do {
            let fresh = try renewer()
            let issued = now()
            state.withLock {
                $0 = State(url: fresh.mediaURL, expiresAt: fresh.expiresAt,
                           renewAt: Self.renewTime(expiresAt: fresh.expiresAt, now: issued), renewals: $0.renewals + 1)
            }
            return fresh.mediaURL
        } catch {
            state.withLock {
                $0.lastFailure = error
                // Not again ahead of time: the URL in hand stays valid until it expires, and
                // then the origin's 403 asks once more.
                if proactive { $0.renewAt = .infinity }
            }
            return nil
        }
    }
}
