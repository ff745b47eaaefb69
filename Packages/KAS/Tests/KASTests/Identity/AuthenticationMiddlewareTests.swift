import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON
import Synchronization
import Testing

/// Counts handler runs across worker threads.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

extension IdentityTests {
    @Suite struct AuthenticationMiddlewareTests {
        /// A router with a public route and an authenticated group whose handler reports who it saw.
        private func makeServer(_ verifier: BearerTokenVerifier, sink: MemoryLogSink, metrics: Metrics,
                                handled: CallCounter) throws -> TestServer {
            let router = Router<KASRequestContext>()
            router.add(middleware: RequestLogMiddleware(sink: sink))
            router.add(middleware: ErrorMiddleware(sink: sink))
            router.get("/healthz") { _, _ in .text("ok") }
            router.group("/api", middleware: [AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics)])
                .get("/whoami") { _, context in
                    handled.increment()
                    guard let identity = context.identity else { throw HTTPError.internalError }
                    return .json(.object(JSONObject([
                        ("sub", .string(identity.subject)),
                        ("viewer", .string(context.viewerHash ?? "")),
                        ("entitlements", .array(identity.entitlements.map(JSONValue.string))),
                    ])))
                }
            return try TestServer(router: router)
        }

        @Test func tokensAreRequiredOnlyOnTheAuthenticatedGroup() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let verifier = try BearerTokenVerifier(configuration: KASConfiguration(), keyRing: ring)
            let sink = MemoryLogSink(), metrics = Metrics()
            let handled = CallCounter()
            let server = try makeServer(verifier, sink: sink, metrics: metrics, handled: handled)
            defer { server.stop() }
            let issuer = try #require(ring.devIssuer)
            let token = try issuer.token(subject: "alice", lifetime: 600, extraClaims: JSONObject([
                ("entitlements", .array([.string("https://example.com/attr/tier/value/premium")])),
            ]))

            #expect(try Curl.run([server.url("/healthz")]).status == 200)

            let missing = try Curl.run([server.url("/api/whoami")])
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == "Bearer")
            #expect(try JSONParser.parse(missing.body) == .object(JSONObject([("error", .string("unauthorized"))])))

            let accepted = try Curl.run(["-H", "Authorization: Bearer \(token)", server.url("/api/whoami")])
            #expect(accepted.status == 200)
            let body = try #require(JSONParser.parse(accepted.body).object)
            #expect(body["sub"] == .string("alice"))
            #expect(body["viewer"] == .string(Identity.viewerHash(issuer: DevIssuer.issuer, subject: "alice")))
            #expect(body["entitlements"] == .array([.string("https://example.com/attr/tier/value/premium")]))

            let expired = try issuer.token(subject: "alice", lifetime: 1, now: Date().addingTimeInterval(-3600))
            var parts = token.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let invalid = #"Bearer error="invalid_token", error_description="invalid""#
            // An expired token whose signature does not verify is "invalid": only a genuine
            // token is said to have expired.
            var forgedExpired = expired.split(separator: ".").map(String.init)
            forgedExpired[2] = String(forgedExpired[2].reversed())
            let otherTemp = try TemporaryDirectory()
            let otherRing = try KeyRing.generate(dataDirectory: otherTemp.path).ring
            let foreign = try #require(otherRing.devIssuer).token(subject: "alice", lifetime: 600)
            let refusals: [([String], String)] = [
                (["-H", "Authorization: Bearer \(expired)", server.url("/api/whoami")],
                 #"Bearer error="invalid_token", error_description="expired""#),
                (["-H", "Authorization: Bearer \(parts.joined(separator: "."))", server.url("/api/whoami")], invalid),
                (["-H", "Authorization: Bearer \(forgedExpired.joined(separator: "."))", server.url("/api/whoami")], invalid),
                (["-H", "Authorization: Bearer \(foreign)", server.url("/api/whoami")], invalid),
                (["-H", "Authorization: Basic YWxpY2U6cGFzcw==", server.url("/api/whoami")], invalid),
                // Tokens in URLs are never read.
                ([server.url("/api/whoami?access_token=\(token)")], "Bearer"),
                (["-H", "Authorization: Bearer \(token)", "-H", "Authorization: Bearer \(token)", server.url("/api/whoami")],
                 invalid),
            ]
            for (arguments, challenge) in refusals {
                let refused = try Curl.run(arguments)
                #expect(refused.status == 401)
                #expect(refused.header("WWW-Authenticate") == challenge)
                #expect(refused.text == #"{"error":"unauthorized"}"#)
            }
            #expect(handled.value == 1)
            #expect(!sink.lines.joined().contains(foreign))

            // Logs carry the viewer hash and refusal causes, never the subject or the token.
            let log = sink.lines.joined(separator: "\n")
            #expect(log.contains(Identity.viewerHash(issuer: DevIssuer.issuer, subject: "alice")))
            #expect(log.contains("invalidToken.expired"))
            #expect(log.contains("missingToken"))
            #expect(!log.contains("alice"))
            #expect(!log.contains(parts[1]))
            #expect(metrics.counterValue("auth_failures_total", labels: [("cause", "missingToken")]) == 2)
        }

        @Test func refusalIsTheSameWhateverTheCause() throws {
            let verifier = BearerTokenVerifier(issuers: [])
            let middleware = AuthenticationMiddleware(verifier: verifier)
            var context = KASRequestContext(core: CoreRequestContext())
            for headers: ServerHeaders in [[:], ["Authorization": "Bearer a.b.c"], ["Authorization": "Negotiate x"]] {
                let request = ServerRequest(method: .get, path: "/x", headers: headers)
                let error = #expect(throws: HTTPError.self) {
                    try middleware.handle(request, context: &context) { _, _ in ServerResponse() }
                }
                #expect(error?.status == .unauthorized)
                #expect(error?.reason == "unauthorized")
                #expect(error?.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
            }
            #expect(context.identity == nil && context.viewerHash == nil)
        }

        /// The context carries the identity the verifier made from the verified claims, nothing
        /// read again from the claims set.
        @Test func theContextCarriesTheVerifiedProjectClaims() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let verifier = try BearerTokenVerifier(configuration: KASConfiguration(), keyRing: ring)
            let uuid = UUID()
            let now = Date()
            let token = try #require(ring.devIssuer).token(subject: "bob", lifetime: 600, extraClaims: JSONObject([
                ("entitlements", .array([.string("e1"), .string("e2")])),
                ("rentals", .object(JSONObject([(uuid.uuidString, .number(1_700_000_000))]))),
            ]), now: now)
            var context = KASRequestContext(core: CoreRequestContext())
            let request = ServerRequest(method: .get, path: "/x", headers: ["Authorization": "Bearer \(token)"])
            _ = try AuthenticationMiddleware(verifier: verifier).handle(request, context: &context) { _, _ in ServerResponse() }
            let identity = try #require(context.identity)
            #expect(identity == (try verifier.verify(token: token)))
            #expect(identity.subject == "bob" && identity.issuer == DevIssuer.issuer)
            #expect(identity.entitlements == ["e1", "e2"])
            #expect(identity.rentals == [uuid: 1_700_000_000])
            #expect(identity.expiresAt == Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 600).rounded(.down)))
        }
    }
}
