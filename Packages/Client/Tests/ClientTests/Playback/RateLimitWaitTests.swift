import Foundation
import Testing
@testable import Client

/// `RateLimitWait`'s rule for a 429: only a rate limit with a short numeric `Retry-After` is
/// waited out. The waits against a real `kas serve` behind a rate-limiting proxy are in the
/// end-to-end suite (Tests-E2E, ClientPlayback/RateLimitWaitTests.swift).
@Suite struct RateLimitWaitTests {
    /// A 429 that refuses the viewer (a denial code) is a decision, not a budget: never retried.
    @Test func aRefusalIsNotARateLimit() {
        let wait = RateLimitWait()
        let refusal = TransportResponse(status: 429, headers: ["Retry-After": "1"],
                                        body: Data(#"{"reason":"too_many_sessions"}"#.utf8))
        #expect(wait.delay(after: refusal, attempt: 1) == nil)
        let limited = TransportResponse(status: 429, headers: ["Retry-After": "2"], body: Data(#"{"error":"rate limit"}"#.utf8))
        #expect(wait.delay(after: limited, attempt: 1) == 2)
        #expect(wait.delay(after: limited, attempt: RateLimitWait.maximumAttempts) == nil)
        let noHeader = TransportResponse(status: 429, headers: [:], body: Data())
        #expect(wait.delay(after: noHeader, attempt: 1) == nil)
        let dated = TransportResponse(status: 429, headers: ["Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"], body: Data())
        #expect(wait.delay(after: dated, attempt: 1) == nil)
    }
}
