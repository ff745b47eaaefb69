import Foundation
import KASObservability
import MediaDRMJOSE
import MediaDRMJSON
import Synchronization

/// The keys of one issuer configured with `discovery: true`, as last read from its provider
/// (docs/kas.md "Issuers by discovery"). A key set is
/// - fresh for its lifetime (`KeySetLifetime`) after the last good fetch; the refresher fetches
///   it again when that ends, and every `retrySeconds` while the provider fails;
/// - stale after that while the provider cannot be reached: still used, for at most the issuer's
///   `maxStaleSeconds`, with `kas_issuer_key_set_stale` at 1 and a log line;
/// - expired after that, or missing before the first good fetch: the issuer's tokens are refused
///   (`IdentityError.Code.issuerKeysUnavailable`) until the provider answers again.
/// A token whose `kid` the set does not hold makes the verifier fetch again at once, within
/// `UnknownKeyRefetchLimiter`'s one per 30 s and `unknownKeyWaitSeconds`.
package final class DiscoveredKeySet: Sendable {
    package enum Freshness: String, Sendable {
        case missing, fresh, stale, expired
    }

    /// Wait between attempts while the provider fails.
    package static let retrySeconds: TimeInterval = 30
    /// Longest a request that found an unknown `kid` waits for the provider.
    package static let unknownKeyWaitSeconds: Double = 5

    package let issuer: String
    package let maxStaleSeconds: TimeInterval
    private let fetcher: OpenIDKeySetFetcher
    private let limiter: UnknownKeyRefetchLimiter
    private let clock: @Sendable () -> Date

    private struct State {
        var current: FetchedKeySet?
        var fetchedAt: Date?
        /// Bumped by every good fetch: tokens verified under an older set are verified again.
        var generation = 0
        var nextAttempt = Date.distantPast
        /// The freshness last reported in the log, so a change is logged once.
        var reported = Freshness.missing
        var sink: (any LogSink)?
        var metrics: Metrics?
    }
    private let state = Mutex(State())

    package init(issuer: String, discovery: OpenIDDiscovery, client: any ProviderHTTPSClient = CurlProviderHTTPSClient(),
                 limiter: UnknownKeyRefetchLimiter = UnknownKeyRefetchLimiter(),
                 clock: @escaping @Sendable () -> Date = { Date() }) {
        self.issuer = issuer
        self.maxStaleSeconds = TimeInterval(discovery.maxStaleSeconds)
        self.fetcher = OpenIDKeySetFetcher(issuer: issuer, caFile: discovery.caFile, client: client)
        self.limiter = limiter
        self.clock = clock
    }

    /// Where fetches and freshness changes are logged and counted.
    package func attach(sink: (any LogSink)?, metrics: Metrics?) {
        state.withLock { state in
            state.sink = sink
            state.metrics = metrics
        }
        // Present from the start, so an alert on increase() sees the first failure.
        metrics?.increment(Self.failuresMetric, help: Self.failuresHelp, labels: [("issuer", issuer)], by: 0)
        metrics?.increment(Self.refetchesMetric, help: Self.refetchesHelp, labels: [("issuer", issuer)], by: 0)
    }

    package func freshness(at now: Date) -> Freshness {
        state.withLock { Self.freshness($0, at: now, maxStale: maxStaleSeconds) }
    }

    /// Seconds since the last good fetch; nil before the first.
    package func ageSeconds(at now: Date) -> TimeInterval? {
        state.withLock { $0.fetchedAt.map { max(0, now.timeIntervalSince($0)) } }
    }

    private static func freshness(_ state: State, at now: Date, maxStale: TimeInterval) -> Freshness {
        guard let current = state.current, let fetchedAt = state.fetchedAt else { return .missing }
        let age = now.timeIntervalSince(fetchedAt)
        if age < current.lifetimeSeconds { return .fresh }
        return age < current.lifetimeSeconds + maxStale ? .stale : .expired
    }

    /// The keys tokens of this issuer are verified with now, and their generation.
    package func usableKeys() throws(IdentityError) -> (keys: [JWSVerificationKey], generation: Int) {
        let now = clock()
        let (freshness, keys, generation) = state.withLock { state in
            (Self.freshness(state, at: now, maxStale: maxStaleSeconds), state.current?.keys ?? [], state.generation)
        }
        switch freshness {
        case .fresh, .stale:
            return (keys, generation)
        case .missing:
            throw IdentityError(.issuerKeysUnavailable, "no key set has been read from the issuer's provider yet")
        case .expired:
            throw IdentityError(.issuerKeysUnavailable, "the issuer's key set is past its refresh time by more than "
                                + "maxStaleSeconds (\(Int(maxStaleSeconds)) s) and the provider cannot be reached")
        }
    }

    /// Whether a token verified under `generation` still stands: the same key set, still usable.
    package func stillVerifies(generation: Int) -> Bool {
        let now = clock()
        return state.withLock { state in
            state.generation == generation && Self.freshness(state, at: now, maxStale: maxStaleSeconds) != .expired
        }
    }

    /// The refresher's tick: fetches when the key set is due (or the last attempt failed and the
    /// retry time has come) and logs a change of freshness.
    package func refreshIfDue() {
        let now = clock()
        if state.withLock({ now >= $0.nextAttempt }) { _ = refresh(trigger: "scheduled", timeoutSeconds: OpenIDKeySetFetcher.timeoutSeconds) }
        reportFreshness(at: clock())
    }

    /// A token named a `kid` the set does not hold: fetches again if the limiter permits.
    /// True when a new key set arrived (the caller verifies once more).
    package func refetchForUnknownKey() -> Bool {
        guard limiter.permit(at: clock()) else { return false }
        let metrics = state.withLock { $0.metrics }
        metrics?.increment(Self.refetchesMetric, help: Self.refetchesHelp, labels: [("issuer", issuer)])
        let fetched = refresh(trigger: "unknown_kid", timeoutSeconds: Self.unknownKeyWaitSeconds)
        reportFreshness(at: clock())
        return fetched
    }

    /// One fetch, outside the lock (requests keep verifying with the current set meanwhile).
    @discardableResult
    package func refresh(trigger: String, timeoutSeconds: Double) -> Bool {
        let result: Result<FetchedKeySet, OpenIDProviderError>
        do throws(OpenIDProviderError) {
            result = .success(try fetcher.fetch(timeoutSeconds: timeoutSeconds))
        } catch {
            result = .failure(error)
        }
        let now = clock()
        switch result {
        case .success(let fetched):
            let sink = state.withLock { state -> (any LogSink)? in
                state.current = fetched
                state.fetchedAt = now
                state.generation += 1
                state.nextAttempt = now.addingTimeInterval(fetched.lifetimeSeconds)
                return state.sink
            }
            log(sink, "issuer_key_set_fetched", [
                ("trigger", .string(trigger)), ("kids", .array(fetched.keyIDs.map(JSONValue.string))),
                ("lifetimeSeconds", .number(JSONNumber(Int(fetched.lifetimeSeconds)))),
            ])
            return true
        case .failure(let error):
            let (sink, metrics, freshness, age) = state.withLock { state in
                state.nextAttempt = now.addingTimeInterval(Self.retrySeconds)
                return (state.sink, state.metrics, Self.freshness(state, at: now, maxStale: maxStaleSeconds),
                        state.fetchedAt.map { Int(now.timeIntervalSince($0)) })
            }
            metrics?.increment(Self.failuresMetric, help: Self.failuresHelp, labels: [("issuer", issuer)])
            log(sink, "issuer_key_set_fetch_failed", [
                ("trigger", .string(trigger)), ("code", .string(error.code.rawValue)), ("reason", .string(error.reason)),
                ("keySet", .string(freshness.rawValue)), ("ageSeconds", age.map { .number(JSONNumber($0)) } ?? .null),
            ])
            return false
        }
    }

    /// Logs `issuer_key_set_stale` or `issuer_key_set_expired` when the set becomes so, and
    /// `issuer_key_set_fresh` when a good fetch ends either.
    private func reportFreshness(at now: Date) {
        let change = state.withLock { state -> (Freshness, (any LogSink)?)? in
            let freshness = Self.freshness(state, at: now, maxStale: maxStaleSeconds)
            guard freshness != state.reported else { return nil }
            state.reported = freshness
            return (freshness, state.sink)
        }
        guard let (freshness, sink) = change, freshness != .missing else { return }
        let age = ageSeconds(at: now).map { JSONValue.number(JSONNumber(Int($0))) } ?? .null
        switch freshness {
        case .stale:
            log(sink, "issuer_key_set_stale", [("ageSeconds", age), ("maxStaleSeconds", .number(JSONNumber(Int(maxStaleSeconds))))])
        case .expired:
            log(sink, "issuer_key_set_expired", [("ageSeconds", age), ("refusing", .string("every token of this issuer until the provider answers"))])
        case .fresh, .missing:
            log(sink, "issuer_key_set_fresh", [("ageSeconds", age)])
        }
    }

    private func log(_ sink: (any LogSink)?, _ event: String, _ fields: [(String, JSONValue)]) {
        guard let sink else { return }
        let members: [(String, JSONValue)] = [("ts", .string(LogTimestamp.now())), ("event", .string(event)), ("issuer", .string(issuer))]
        sink.write(JSONWriter.string(.object(JSONObject(members + fields)), options: []))
    }

    static let failuresMetric = "issuer_key_set_fetch_failures_total"
    static let failuresHelp = "Failed fetches of an issuer's discovery document or key set (docs/kas.md \"Issuers by discovery\")."
    static let refetchesMetric = "issuer_key_set_unknown_kid_refetches_total"
    static let refetchesHelp = "Key set fetches made because a token named an unknown kid (at most one per 30 s per issuer)."
}
