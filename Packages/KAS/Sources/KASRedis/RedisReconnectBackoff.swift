/// When the client may try to connect again after a failed connect: at first after `initial`,
/// then twice as long after each further failure up to `maximum`, and at once after a success.
/// Between attempts calls fail fast, so an unreachable Redis costs each request an immediate
/// `.unreachable` (a 503) instead of a connect timeout, and the KAS recovers by itself within
/// `maximum` of Redis coming back.
struct RedisReconnectBackoff: Sendable {
    struct Policy: Sendable {
        var initial: Duration
        var maximum: Duration

        /// A quarter second doubling to 4 s: a restart of Redis is noticed within seconds
        /// while an outage costs at most one connect attempt per 4 s per node.
        static let standard = Policy(initial: .milliseconds(250), maximum: .seconds(4))
    }

    let policy: Policy
    private var delay: Duration?
    private(set) var retryAt: ContinuousClock.Instant?
    /// The last connect failure, repeated (marked as a backoff) to calls made before `retryAt`.
    private(set) var lastFailure: RedisError?

    init(policy: Policy) { self.policy = policy }

    /// Whether a connect may be attempted at `now`.
    func allowsAttempt(at now: ContinuousClock.Instant) -> Bool {
        retryAt.map { now >= $0 } ?? true
    }

    mutating func recordFailure(_ error: RedisError, at now: ContinuousClock.Instant) {
        let next = delay.map { min($0 * 2, policy.maximum) } ?? policy.initial
        delay = next
        retryAt = now + next
        lastFailure = error
    }

    mutating func recordSuccess() {
        delay = nil
        retryAt = nil
        lastFailure = nil
    }
}
