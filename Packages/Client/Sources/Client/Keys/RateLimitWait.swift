import Foundation

/// How the bulk rewraps wait out the key service's rate limit (docs/protocol.md#rate-limits): a
/// 429 that carries a `Retry-After` and no refusal code is the viewer's request budget running
/// dry, not a decision about the viewer, so the same request is made again once the server says
/// a token is back. A long title fetched fast (`player play --output` with a deep lookahead) can
/// outrun the per-minute budget; waiting is what the server asks for, and bounded: at most
/// `maximumAttempts` sends of one request, each wait at most `maximumWaitSeconds`. Past either
/// bound, or on a 429 with a refusal code (`too_many_sessions`, `concurrent_streams`), the 429 is
/// the playback's error.
struct RateLimitWait: Sendable {
    static let maximumAttempts = 4
    static let maximumWaitSeconds = 60

    /// Told before each wait (the `rateLimited` progress event).
    var announce: (@Sendable (_ seconds: Int) -> Void)?
    /// Blocks the calling thread (the rewraps run on a blocking thread already, `Blocking.run`).
    var sleep: @Sendable (_ seconds: Int) -> Void = { Thread.sleep(forTimeInterval: TimeInterval($0)) }

    init(announce: (@Sendable (_ seconds: Int) -> Void)? = nil) {
        self.announce = announce
    }

    /// The seconds to wait before sending again, or nil when `response` is the answer to keep.
    func delay(after response: TransportResponse, attempt: Int) -> Int? {
        guard response.status == 429, attempt < Self.maximumAttempts,
              PlaybackError.Refusal(status: response.status, headers: response.headers, body: response.body) == nil,
              let seconds = response.headers.retryAfterSeconds, seconds <= Self.maximumWaitSeconds else { return nil }
        return seconds
    }

    /// Runs `send` (which builds and sends one request: a retry is a new request, so a signed
    /// request token or an ephemeral key is never reused) until its answer is not a rate limit.
    func run<Result>(_ send: () throws(PlaybackError) -> (TransportResponse, Result)) throws(PlaybackError) -> (TransportResponse, Result) {
        var attempt = 1
        while true {
            let answer = try send()
            guard let seconds = delay(after: answer.0, attempt: attempt) else { return answer }
            announce?(seconds)
            sleep(seconds)
            attempt += 1
        }
    }
}
