import Foundation
@testable import KASDomain
@testable import KASObservability
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON
import Synchronization
import Testing

extension IdentityTests {
    /// The key set cache of an issuer configured by discovery, against a scripted provider and a
    /// clock the test moves: lifetimes, the unknown-kid limiter, staleness, rotation. The real
    /// HTTPS exchange is `OpenIDProviderFetchTests`; the real provider is Tests-E2E/OpenID.
    @Suite struct OpenIDKeySetTests {
        static let issuer = "https://idp.example"
        static let start = Date(timeIntervalSince1970: 1_767_225_600)

        /// A clock the test sets.
        final class TestClock: Sendable {
            private let value = Mutex(OpenIDKeySetTests.start)
            var now: Date { value.withLock { $0 } }
            func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
            var function: @Sendable () -> Date { { [self] in now } }
        }

        /// A provider whose key set (or outage) the test sets, counting the requests it gets.
        final class ScriptedProvider: ProviderHTTPSClient {
            private struct State {
                var keys: [JWK] = []
                var cacheControl: String? = "max-age=60"
                var down = false
                var requests: [String] = []
            }
            private let state = Mutex(State())

            func publish(_ keys: [JWK], cacheControl: String? = "max-age=60") {
                state.withLock { $0.keys = keys; $0.cacheControl = cacheControl; $0.down = false }
            }
            func goDown() { state.withLock { $0.down = true } }
            var keySetRequests: Int { state.withLock { $0.requests.filter { $0.hasSuffix("/jwks") }.count } }

            func get(_ request: ProviderHTTPSRequest) throws(OpenIDProviderError) -> ProviderHTTPSResponse {
                let (keys, cacheControl, down) = state.withLock { state in
                    state.requests.append(request.url)
                    return (state.keys, state.cacheControl, state.down)
                }
                if down { throw OpenIDProviderError(.transport, "connection refused") }
                if request.url.hasSuffix("/.well-known/openid-configuration") {
                    let document = JSONObject([("issuer", .string(OpenIDKeySetTests.issuer)),
                                               ("jwks_uri", .string(OpenIDKeySetTests.issuer + "/jwks"))])
                    return ProviderHTTPSResponse(body: JSONWriter.write(.object(document)), cacheControl: nil)
                }
                return ProviderHTTPSResponse(body: JWKSet(keys: keys).jsonData, cacheControl: cacheControl)
            }
        }

        struct Fixture {
            let clock = TestClock()
            let provider = ScriptedProvider()
            let keySet: DiscoveredKeySet
            let verifier: BearerTokenVerifier
            let metrics = Metrics()
            let log = MemoryLogSink()

            init(maxStaleSeconds: Int = 120) {
                keySet = DiscoveredKeySet(issuer: OpenIDKeySetTests.issuer,
                                          discovery: OpenIDDiscovery(maxStaleSeconds: maxStaleSeconds),
                                          client: provider, clock: clock.function)
                verifier = BearerTokenVerifier(issuers: [.init(issuer: OpenIDKeySetTests.issuer, audiences: ["kas"], keySet: keySet)],
                                               clock: clock.function)
                keySet.attach(sink: log, metrics: metrics)
            }

            /// A token for `alice` signed by `key` under `kid`, valid for an hour from now.
            func token(_ key: ECP256.Signing.PrivateKey, kid: String) throws -> String {
                let now = Int64(clock.now.timeIntervalSince1970)
                return try JWT.sign(claims: JSONObject([
                    ("iss", .string(OpenIDKeySetTests.issuer)), ("aud", .string("kas")), ("sub", .string("alice")),
                    ("iat", .number(JSONNumber(now))), ("exp", .number(JSONNumber(now + 3600))),
                ]), key: JWSSigningKey(p256: key, keyID: kid))
            }
        }

        @Test func cacheControlMaxAgeIsHeldBetweenAMinuteAndADay() {
            #expect(KeySetLifetime.seconds(cacheControl: nil) == 300)
            #expect(KeySetLifetime.seconds(cacheControl: "public") == 300)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=3600") == 3600)
            #expect(KeySetLifetime.seconds(cacheControl: "public, Max-Age=\"120\"") == 120)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=10") == 60)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=0") == 60)
            #expect(KeySetLifetime.seconds(cacheControl: "no-cache") == 60)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=31536000") == 86_400)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=99999999999999999999999") == 86_400)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=-5") == 60)
            #expect(KeySetLifetime.seconds(cacheControl: "max-age=900, max-age=100") == 100)
        }

        @Test func theLimiterPermitsOneRefetchPerThirtySeconds() {
            let limiter = UnknownKeyRefetchLimiter()
            #expect(limiter.permit(at: Self.start))
            #expect(!limiter.permit(at: Self.start.addingTimeInterval(1)))
            #expect(!limiter.permit(at: Self.start.addingTimeInterval(29.9)))
            #expect(limiter.permit(at: Self.start.addingTimeInterval(30)))
            #expect(!limiter.permit(at: Self.start.addingTimeInterval(45)))
        }

        @Test func randomKidsCostTheProviderOneFetchPerThirtySeconds() throws {
            let fixture = Fixture()
            let key = try ECP256.Signing.PrivateKey()
            fixture.provider.publish([JWK(publicKey: key.publicKey, keyID: "k1")])
            fixture.keySet.refreshIfDue()
            #expect(fixture.provider.keySetRequests == 1)
            #expect(try fixture.verifier.verify(token: fixture.token(key, kid: "k1")).subject == "alice")

            // A hundred tokens with kids nobody published: one fetch, then refusals without one.
            for index in 0..<100 {
                let forged = try fixture.token(ECP256.Signing.PrivateKey(), kid: "random-\(index)")
                #expect(throws: IdentityError(.invalidToken, "", tokenError: .unknownKey)) { try fixture.verifier.verify(token: forged) }
            }
            #expect(fixture.provider.keySetRequests == 2)
            fixture.clock.advance(29)
            _ = try? fixture.verifier.verify(token: fixture.token(ECP256.Signing.PrivateKey(), kid: "random-x"))
            #expect(fixture.provider.keySetRequests == 2)
            fixture.clock.advance(1)
            _ = try? fixture.verifier.verify(token: fixture.token(ECP256.Signing.PrivateKey(), kid: "random-y"))
            #expect(fixture.provider.keySetRequests == 3)
            #expect(fixture.metrics.counterValue("issuer_key_set_unknown_kid_refetches_total", labels: [("issuer", Self.issuer)]) == 2)
        }

        @Test func aRotatedKeyIsAcceptedAtOnceAndARemovedOneRefusedOnceTheSetRefreshes() throws {
            let fixture = Fixture()
            let old = try ECP256.Signing.PrivateKey()
            let new = try ECP256.Signing.PrivateKey()
            fixture.provider.publish([JWK(publicKey: old.publicKey, keyID: "old")])
            fixture.keySet.refreshIfDue()
            let oldToken = try fixture.token(old, kid: "old")
            #expect(try fixture.verifier.verify(token: oldToken).subject == "alice")

            // Rotation: the provider adds the new key and signs with it; the first token naming it
            // makes the KAS fetch again, without waiting for the lifetime.
            fixture.provider.publish([JWK(publicKey: new.publicKey, keyID: "new"), JWK(publicKey: old.publicKey, keyID: "old")])
            fixture.clock.advance(5)
            #expect(try fixture.verifier.verify(token: fixture.token(new, kid: "new")).subject == "alice")
            #expect(try fixture.verifier.verify(token: oldToken).subject == "alice")

            // The old key removed: still trusted until the set's lifetime (max-age=60) ends, then
            // the refresher's fetch drops it, the remembered verification included.
            fixture.provider.publish([JWK(publicKey: new.publicKey, keyID: "new")])
            fixture.clock.advance(30)
            fixture.keySet.refreshIfDue()
            #expect(try fixture.verifier.verify(token: oldToken).subject == "alice")
            fixture.clock.advance(31)
            fixture.keySet.refreshIfDue()
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .unknownKey)) { try fixture.verifier.verify(token: oldToken) }
            #expect(try fixture.verifier.verify(token: fixture.token(new, kid: "new")).subject == "alice")
        }

        @Test func staleKeysServeWithinTheWindowThenTheIssuersTokensAreRefused() throws {
            let fixture = Fixture(maxStaleSeconds: 120)
            let key = try ECP256.Signing.PrivateKey()
            fixture.provider.publish([JWK(publicKey: key.publicKey, keyID: "k1")], cacheControl: "max-age=60")
            fixture.keySet.refreshIfDue()
            let token = try fixture.token(key, kid: "k1")
            #expect(try fixture.verifier.verify(token: token).subject == "alice")
            #expect(fixture.metrics.render().contains(#"kas_issuer_key_set_fetch_failures_total{issuer="https://idp.example"} 0"#))

            // The provider goes down; the set's lifetime ends: stale, still serving, and said so.
            fixture.provider.goDown()
            fixture.clock.advance(61)
            fixture.keySet.refreshIfDue()
            #expect(fixture.keySet.freshness(at: fixture.clock.now) == .stale)
            #expect(try fixture.verifier.verify(token: token).subject == "alice")
            #expect(fixture.metrics.counterValue("issuer_key_set_fetch_failures_total", labels: [("issuer", Self.issuer)]) == 1)
            #expect(fixture.log.lines.contains { $0.contains(#""event":"issuer_key_set_fetch_failed""#) && $0.contains(#""keySet":"stale""#) })
            #expect(fixture.log.lines.contains { $0.contains(#""event":"issuer_key_set_stale""#) })

            // Past lifetime + maxStaleSeconds: refused, the remembered verification too.
            fixture.clock.advance(120)
            fixture.keySet.refreshIfDue()
            #expect(fixture.keySet.freshness(at: fixture.clock.now) == .expired)
            #expect(throws: IdentityError(.issuerKeysUnavailable, "")) { try fixture.verifier.verify(token: token) }
            #expect(fixture.log.lines.contains { $0.contains(#""event":"issuer_key_set_expired""#) })

            // The provider is back: the next attempt (every 30 s while failing) restores it.
            fixture.provider.publish([JWK(publicKey: key.publicKey, keyID: "k1")])
            fixture.clock.advance(30)
            fixture.keySet.refreshIfDue()
            #expect(fixture.keySet.freshness(at: fixture.clock.now) == .fresh)
            #expect(try fixture.verifier.verify(token: token).subject == "alice")
            // No line carries the token.
            #expect(!fixture.log.lines.contains { $0.contains(token) })
        }

        @Test func beforeTheFirstGoodFetchTheIssuersTokensAreRefused() throws {
            let fixture = Fixture()
            fixture.provider.goDown()
            fixture.keySet.refreshIfDue()
            let token = try fixture.token(ECP256.Signing.PrivateKey(), kid: "k1")
            #expect(throws: IdentityError(.issuerKeysUnavailable, "")) { try fixture.verifier.verify(token: token) }
        }

        @Test func theGaugesShowAgeAndStaleness() throws {
            let fixture = Fixture()
            let refresher = KeySetRefresher(sets: [fixture.keySet], clock: fixture.clock.function)
            fixture.provider.publish([JWK(publicKey: try ECP256.Signing.PrivateKey().publicKey, keyID: "k1")])
            refresher.start(sink: fixture.log, metrics: fixture.metrics)
            defer { refresher.stop() }
            // Down before the clock moves, so the refresher's tick cannot renew the set meanwhile.
            fixture.provider.goDown()
            fixture.clock.advance(70)
            let text = fixture.metrics.render()
            #expect(text.contains("# TYPE kas_issuer_key_set_age_seconds gauge"))
            #expect(text.contains(#"kas_issuer_key_set_age_seconds{issuer="https://idp.example"} 70"#))
            #expect(text.contains(#"kas_issuer_key_set_stale{issuer="https://idp.example"} 1"#))
            #expect(text.contains(#"kas_issuer_key_set_usable{issuer="https://idp.example"} 1"#))
        }
    }
}
