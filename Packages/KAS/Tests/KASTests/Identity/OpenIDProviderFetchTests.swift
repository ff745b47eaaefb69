import Foundation
@testable import KASDomain
import KASHTTP
import KASTesting
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON
import Synchronization
import Testing

extension IdentityTests {
    /// The discovery fetch over real HTTPS (libcurl against the KAS's own server on loopback with
    /// a certificate the test makes): what a provider may answer, and what the KAS refuses.
    @Suite struct OpenIDProviderFetchTests {
        /// What the test provider answers; the handlers read it, so documents can name the server's
        /// own URL once it has a port.
        final class ProviderScript: Sendable {
            struct Answers {
                var discovery: JSONObject = JSONObject()
                var keySet = Data()
                var keySetCacheControl = "max-age=120"
                var redirect: String?
            }
            let answers = Mutex(Answers())
            let requests = Mutex(0)
        }

        static func provider(_ script: ProviderScript, tls: Bool = true) throws -> TestServer {
            let router = Router<BasicRequestContext>()
            router.get("/.well-known/openid-configuration") { _, _ in
                script.requests.withLock { $0 += 1 }
                let answers = script.answers.withLock { $0 }
                if let location = answers.redirect {
                    return ServerResponse(status: 302, headers: ["Location": location])
                }
                return .json(.object(answers.discovery))
            }
            router.get("/moved/.well-known/openid-configuration") { _, _ in
                .json(.object(script.answers.withLock { $0.discovery }))
            }
            router.get("/jwks") { _, _ in
                script.requests.withLock { $0 += 1 }
                let answers = script.answers.withLock { $0 }
                return ServerResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": answers.keySetCacheControl],
                                      body: answers.keySet)
            }
            return try TestServer(router: router, tls: tls)
        }

        /// A provider that serves a discovery document naming itself and a one-key set.
        static func working() throws -> (TestServer, ProviderScript, String) {
            let script = ProviderScript()
            let server = try provider(script)
            let issuer = server.baseURL.absoluteString
            let key = try ECP256.Signing.PrivateKey()
            script.answers.withLock { answers in
                answers.discovery = JSONObject([("issuer", .string(issuer)), ("jwks_uri", .string(server.url("/jwks")))])
                answers.keySet = JWKSet(keys: [JWK(publicKey: key.publicKey, keyID: "k1")]).jsonData
            }
            return (server, script, issuer)
        }

        static func fetcher(_ issuer: String, _ server: TestServer?) -> OpenIDKeySetFetcher {
            OpenIDKeySetFetcher(issuer: issuer, caFile: server?.certificate?.certificatePath, client: CurlProviderHTTPSClient())
        }

        @Test func readsTheKeySetOverHTTPSTrustingTheConfiguredCA() throws {
            let (server, _, issuer) = try Self.working()
            defer { server.stop() }
            let fetched = try Self.fetcher(issuer, server).fetch()
            #expect(fetched.keyIDs == ["k1"])
            #expect(fetched.lifetimeSeconds == 120)
        }

        @Test func aCertificateOutsideTheTrustedCAsIsRefused() throws {
            let (server, _, issuer) = try Self.working()
            defer { server.stop() }
            // The system bundle does not hold the test's self-signed certificate.
            let fetcher = OpenIDKeySetFetcher(issuer: issuer, caFile: nil, client: CurlProviderHTTPSClient())
            #expect(throws: OpenIDProviderError(.transport, "")) { try fetcher.fetch() }
        }

        @Test func plainHTTPIsRefusedBeforeAnyRequest() throws {
            let script = ProviderScript()
            let server = try Self.provider(script, tls: false)
            defer { server.stop() }
            let issuer = server.baseURL.absoluteString
            #expect(issuer.hasPrefix("http://"))
            #expect(throws: OpenIDProviderError(.plainHTTP, "")) { try Self.fetcher(issuer, nil).fetch() }
            #expect(script.requests.withLock { $0 } == 0)
        }

        @Test func aPlainHTTPKeySetURIIsRefused() throws {
            let (server, script, issuer) = try Self.working()
            defer { server.stop() }
            script.answers.withLock { $0.discovery = JSONObject([("issuer", .string(issuer)),
                                                                 ("jwks_uri", .string("http://127.0.0.1:\(server.port)/jwks"))]) }
            #expect(throws: OpenIDProviderError(.plainHTTP, "")) { try Self.fetcher(issuer, server).fetch() }
        }

        @Test func aRedirectToAnotherHostIsRefusedAndOneOnTheSameHostFollowed() throws {
            let (server, script, issuer) = try Self.working()
            let (other, _, _) = try Self.working()
            defer { server.stop(); other.stop() }
            script.answers.withLock { $0.redirect = other.url("/.well-known/openid-configuration") }
            #expect(throws: OpenIDProviderError(.redirectToAnotherHost, "")) { try Self.fetcher(issuer, server).fetch() }
            // `localhost` is another host name than 127.0.0.1, even on the same port.
            script.answers.withLock { $0.redirect = "https://localhost:\(server.port)/moved/.well-known/openid-configuration" }
            #expect(throws: OpenIDProviderError(.redirectToAnotherHost, "")) { try Self.fetcher(issuer, server).fetch() }
            script.answers.withLock { $0.redirect = server.url("/moved/.well-known/openid-configuration") }
            #expect(try Self.fetcher(issuer, server).fetch().keyIDs == ["k1"])
        }

        @Test func aDiscoveryDocumentForAnotherIssuerIsRefused() throws {
            let (server, script, issuer) = try Self.working()
            defer { server.stop() }
            script.answers.withLock { $0.discovery["issuer"] = .string("https://attacker.example") }
            #expect(throws: OpenIDProviderError(.issuerMismatch, "")) { try Self.fetcher(issuer, server).fetch() }
            // A trailing slash is a different issuer (OpenID Connect Discovery 1.0 §4.3: identical).
            script.answers.withLock { $0.discovery["issuer"] = .string(issuer + "/") }
            #expect(throws: OpenIDProviderError(.issuerMismatch, "")) { try Self.fetcher(issuer, server).fetch() }
        }

        @Test func anOversizeKeySetIsRefused() throws {
            let (server, script, issuer) = try Self.working()
            defer { server.stop() }
            script.answers.withLock { $0.keySet = Data(repeating: UInt8(ascii: " "), count: OpenIDKeySetFetcher.maximumKeySetBytes + 1) }
            #expect(throws: OpenIDProviderError(.bodyTooLarge, "")) { try Self.fetcher(issuer, server).fetch() }
        }

        @Test func malformedDocumentsAreRefusedWithTheirReason() throws {
            let (server, script, issuer) = try Self.working()
            defer { server.stop() }
            script.answers.withLock { $0.keySet = Data("{\"keys\": [".utf8) }
            #expect(throws: OpenIDProviderError(.malformedDocument, "")) { try Self.fetcher(issuer, server).fetch() }
            script.answers.withLock { $0.keySet = Data("{\"keys\": []}".utf8) }
            #expect(throws: OpenIDProviderError(.noUsableKeys, "")) { try Self.fetcher(issuer, server).fetch() }
            script.answers.withLock { $0.discovery = JSONObject([("issuer", .string(issuer))]) }
            #expect(throws: OpenIDProviderError(.malformedDocument, "")) { try Self.fetcher(issuer, server).fetch() }
        }
    }
}
