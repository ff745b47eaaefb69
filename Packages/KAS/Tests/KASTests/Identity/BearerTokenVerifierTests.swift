import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import Synchronization
import Testing

extension IdentityTests {
    @Suite struct BearerTokenVerifierTests {
        static let now = Date(timeIntervalSince1970: 1_767_225_600)
        static let clock: @Sendable () -> Date = { BearerTokenVerifierTests.now }
        static let rentalUUID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

        /// A claims set valid at `now` for issuer `iss` and audience `aud`, with overrides.
        private func claims(iss: String = DevIssuer.issuer, aud: JSONValue = .string(DevIssuer.audience),
                            sub: String? = "alice", exp: Int64? = 1_767_225_600 + 600, nbf: Int64? = nil,
                            iat: Int64? = 1_767_225_600, extra: [(String, JSONValue)] = []) -> JSONObject {
            var members: [(String, JSONValue)] = [("iss", .string(iss)), ("aud", aud)]
            if let sub { members.append(("sub", .string(sub))) }
            if let exp { members.append(("exp", .number(JSONNumber(exp)))) }
            if let nbf { members.append(("nbf", .number(JSONNumber(nbf)))) }
            if let iat { members.append(("iat", .number(JSONNumber(iat)))) }
            return JSONObject(members + extra)
        }

        private func ringVerifier(devIssuer: Bool = true) throws -> (BearerTokenVerifier, KeyRing, TemporaryDirectory) {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            var configuration = KASConfiguration()
            configuration.devIssuer = devIssuer
            let verifier = try BearerTokenVerifier(configuration: configuration, keyRing: ring, clock: Self.clock)
            return (verifier, ring, temp)
        }

        @Test func devIssuerTokensFromTheRingVerify() throws {
            let (verifier, ring, _) = try ringVerifier()
            let issuer = try #require(ring.devIssuer)
            let token = try issuer.token(subject: "alice", lifetime: 3600, extraClaims: JSONObject([
                ("entitlements", .array([.string("https://example.com/attr/tier/value/premium")])),
                ("rentals", .object(JSONObject([(Self.rentalUUID, .number(1_767_000_000))]))),
            ]), now: Self.now)
            let identity = try verifier.verify(authorizationHeaderValues: ["Bearer \(token)"])
            #expect(identity.subject == "alice")
            #expect(identity.issuer == DevIssuer.issuer)
            #expect(identity.entitlements == ["https://example.com/attr/tier/value/premium"])
            #expect(identity.rentals == [try #require(UUID(uuidString: Self.rentalUUID)): 1_767_000_000])
            #expect(identity.rentalPurchaseTime(policyUUID: Self.rentalUUID.uppercased()) == 1_767_000_000)
            #expect(identity.claims["aud"] == .string(DevIssuer.audience))
            #expect(identity.expiresAt == Self.now.addingTimeInterval(3600))
            // SHA-256("urn:mediadrm:kas:dev-issuer" ‖ 0x00 ‖ hex SHA-256("alice")), first 8 bytes
            // (Python hashlib), and the store key it starts.
            #expect(identity.viewerHash == "d332a40cfb8fb74f")
            #expect(identity.storeKey == "d332a40cfb8fb74fc039c1a92cb2b593ba2f3186e7c5f00768edb895948d26db")
            #expect(!identity.description.contains("alice"))
        }

        @Test func devIssuerCanBeTurnedOff() throws {
            let (verifier, ring, _) = try ringVerifier(devIssuer: false)
            let token = try #require(ring.devIssuer).token(subject: "alice", lifetime: 600, now: Self.now)
            let error = #expect(throws: IdentityError.self) { try verifier.verify(token: token) }
            #expect(error?.tokenError == .wrongIssuer)
        }

        @Test func jwksFileIssuerSelectsKeysByKid() throws {
            let temp = try TemporaryDirectory()
            let rsa = try RSA.PrivateKey(keySize: 2048)
            let ec = try ECP256.Signing.PrivateKey()
            // The JWKS also carries an encryption key, which is skipped, and an unsupported key type.
            var jwks = JWKSet(keys: [JWK(publicKey: rsa.publicKey, keyID: "rsa-1"), JWK(publicKey: ec.publicKey, keyID: "ec-1")]).jsonObject
            var keys = try #require(jwks["keys"]?.array)
            keys.append(.object(JSONObject([("kty", .string("OKP")), ("crv", .string("Ed25519")), ("x", .string("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"))])))
            jwks = JSONObject([("keys", .array(keys))])
            let jwksFile = try temp.write("idp.json", String(decoding: JSONWriter.write(.object(jwks)), as: UTF8.self))
            var configuration = KASConfiguration()
            configuration.issuers = [IssuerConfiguration(issuer: "https://idp.example", audiences: ["kas", "other"],
                                                         keySource: .jwksFile(jwksFile))]
            let verifier = try BearerTokenVerifier(configuration: configuration, keyRing: nil, clock: Self.clock)

            let body = claims(iss: "https://idp.example", aud: .array([.string("x"), .string("kas")]))
            let rs256 = try JWT.sign(claims: body, key: JWSSigningKey(rsa: rsa, keyID: "rsa-1"))
            let es256 = try JWT.sign(claims: body, key: JWSSigningKey(p256: ec, keyID: "ec-1"))
            #expect(try verifier.verify(token: rs256).subject == "alice")
            #expect(try verifier.verify(token: es256).subject == "alice")

            // Signed by a key the JWKS does not have, under a kid it does have.
            let stranger = try JWT.sign(claims: body, key: JWSSigningKey(p256: ECP256.Signing.PrivateKey(), keyID: "ec-1"))
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .badSignature)) { try verifier.verify(token: stranger) }
            let unknownKid = try JWT.sign(claims: body, key: JWSSigningKey(p256: ec, keyID: "ec-9"))
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .unknownKey)) { try verifier.verify(token: unknownKid) }
        }

        @Test func pemAndHS256IssuersVerify() throws {
            let temp = try TemporaryDirectory()
            let rsa = try RSA.PrivateKey(keySize: 2048)
            let pem = try temp.write("rs.pem", rsa.publicKey.pemRepresentation)
            let secretFile = temp.appending("hs.bin")
            let fileSecret = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 * 11 + 3) })
            try fileSecret.write(to: URL(fileURLWithPath: secretFile))
            let environmentSecret = "an environment secret of at least thirty-two bytes"
            var configuration = KASConfiguration()
            configuration.issuers = [
                IssuerConfiguration(issuer: "rs", audiences: ["kas"], keySource: .pemFile(pem)),
                IssuerConfiguration(issuer: "hs-file", audiences: ["kas"], keySource: .hs256SecretFile(secretFile)),
                IssuerConfiguration(issuer: "hs-env", audiences: ["kas"], keySource: .hs256SecretEnvironment("IDP_SECRET")),
            ]
            let verifier = try BearerTokenVerifier(configuration: configuration, keyRing: nil,
                                                   environment: ["IDP_SECRET": environmentSecret], clock: Self.clock)
            let rs = try JWT.sign(claims: claims(iss: "rs", aud: .string("kas")), key: JWSSigningKey(rsa: rsa))
            let hsFile = try JWT.sign(claims: claims(iss: "hs-file", aud: .string("kas")),
                                      key: JWSSigningKey(hmac: SecretKey(data: fileSecret)))
            let hsEnv = try JWT.sign(claims: claims(iss: "hs-env", aud: .string("kas")),
                                     key: JWSSigningKey(hmac: SecretKey(data: Data(environmentSecret.utf8))))
            #expect(try verifier.verify(token: rs).issuer == "rs")
            #expect(try verifier.verify(token: hsFile).issuer == "hs-file")
            #expect(try verifier.verify(token: hsEnv).issuer == "hs-env")

            // Algorithm confusion: an HS256 token whose secret is the RSA issuer's public PEM.
            let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            let payload = Base64URL.encode(JSONWriter.write(.object(claims(iss: "rs", aud: .string("kas")))))
            let mac = HMACSHA256.authenticationCode(Data("\(header).\(payload)".utf8), key: SecretKey(data: Data(rsa.publicKey.pemRepresentation.utf8)))
            let confused = "\(header).\(payload).\(Base64URL.encode(mac))"
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .algorithmMismatch)) { try verifier.verify(token: confused) }

            // An issuer's name with another issuer's key.
            let crossed = try JWT.sign(claims: claims(iss: "hs-env", aud: .string("kas")), key: JWSSigningKey(rsa: rsa))
            #expect(throws: IdentityError.self) { try verifier.verify(token: crossed) }
        }

        @Test func claimChecksRefuseBadTokens() throws {
            let (verifier, ring, _) = try ringVerifier()
            let key = try #require(ring.devIssuer).signingKey
            func sign(_ body: JSONObject) throws -> String { try JWT.sign(claims: body, key: key) }
            let now: Int64 = 1_767_225_600

            let cases: [(String, JSONObject, JOSEError.Code)] = [
                ("expired beyond skew", claims(exp: now - 61), .expired),
                ("no exp", claims(exp: nil), .missingClaim),
                ("not yet valid", claims(nbf: now + 61), .notYetValid),
                ("issued in the future", claims(iat: now + 61), .issuedInFuture),
                ("wrong audience", claims(aud: .string("https://elsewhere.example")), .wrongAudience),
                ("no audience in list", claims(aud: .array([.string("a"), .string("b")])), .wrongAudience),
                ("no sub", claims(sub: nil), .missingClaim),
                ("exp as string", claims(exp: nil, extra: [("exp", .string("1767226200"))]), .invalidClaim),
                ("bad entitlements", claims(extra: [("entitlements", .string("premium"))]), .invalidClaim),
                ("bad rentals", claims(extra: [("rentals", .object(JSONObject([("not-a-uuid", .number(1))])))]), .invalidClaim),
            ]
            for (label, body, code) in cases {
                let token = try sign(body)
                let error = #expect(throws: IdentityError.self, "\(label)") { try verifier.verify(token: token) }
                #expect(error?.code == .invalidToken, "\(label)")
                #expect(error?.tokenError == code, "\(label): \(String(describing: error))")
            }
            // Within the 60 s skew: accepted.
            #expect(try verifier.verify(token: sign(claims(exp: now - 59, nbf: now + 59, iat: now + 59))).subject == "alice")
            // An empty subject is no viewer.
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .missingClaim)) { try verifier.verify(token: sign(claims(sub: ""))) }
        }

        /// A verified token is remembered, but its time window is checked against the clock on
        /// every use: once it expires (or before it is valid) the cached entry is refused exactly
        /// like an uncached token, and tampered tokens never hit the entry of the genuine one.
        @Test func cachedTokensAreStillCheckedAgainstTheClock() throws {
            let temp = try TemporaryDirectory()
            let ring = try KeyRing.generate(dataDirectory: temp.path).ring
            let clockValue = Mutex<TimeInterval>(1_767_225_600)
            let verifier = try BearerTokenVerifier(configuration: KASConfiguration(), keyRing: ring,
                                                   clock: { Date(timeIntervalSince1970: clockValue.withLock { $0 }) })
            let key = try #require(ring.devIssuer).signingKey
            let now: Int64 = 1_767_225_600
            let token = try JWT.sign(claims: claims(exp: now + 600, nbf: now + 30, iat: now), key: key)

            #expect(try verifier.verify(token: token).subject == "alice")
            #expect(try verifier.verify(token: token).subject == "alice")    // from the cache

            // The last signature character changed: a different digest, verified and refused.
            var tampered = Array(token.utf8)
            tampered[tampered.count - 2] = tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let tamperedError = #expect(throws: IdentityError.self) { try verifier.verify(token: String(decoding: tampered, as: UTF8.self)) }
            #expect(tamperedError?.code == .invalidToken)

            // Just inside exp + skew: still accepted; at exp + skew: refused as expired, and stays refused.
            clockValue.withLock { $0 = TimeInterval(now + 600 + 60) - 0.001 }
            #expect(try verifier.verify(token: token).subject == "alice")
            clockValue.withLock { $0 = TimeInterval(now + 600 + 60) }
            for _ in 0..<2 {
                let error = #expect(throws: IdentityError.self) { try verifier.verify(token: token) }
                #expect(error?.tokenError == .expired)
            }
            // A clock set back before nbf - skew refuses a token the cache once held.
            let early = try JWT.sign(claims: claims(exp: now + 600, nbf: now + 120, iat: now), key: key)
            clockValue.withLock { $0 = TimeInterval(now + 60) }
            #expect(try verifier.verify(token: early).subject == "alice")
            clockValue.withLock { $0 = TimeInterval(now + 59) }
            let notYet = #expect(throws: IdentityError.self) { try verifier.verify(token: early) }
            #expect(notYet?.tokenError == .notYetValid)
        }

        @Test func verifiedTokenCacheIsBounded() {
            let cache = VerifiedTokenCache(capacity: 4)
            let identity = Identity(subject: "alice", issuer: "i", entitlements: [], rentals: [:], claims: JSONObject([]), expiresAt: nil)
            for index in 0..<10 { cache.insert(identity, window: 0..<100, for: Data([UInt8(index)]), at: 50) }
            #expect(cache.count <= 4)
            #expect(cache.identity(for: Data([9]), at: 50)?.0 == identity)
            #expect(cache.identity(for: Data([9]), at: 100) == nil)
            #expect(cache.count <= 3)
            // An entry outside its window is never stored.
            cache.insert(identity, window: 0..<10, for: Data([42]), at: 10)
            #expect(cache.identity(for: Data([42]), at: 5) == nil)
        }

        @Test func wrongIssuerAlgNoneAndTamperingAreRefused() throws {
            let (verifier, ring, _) = try ringVerifier()
            let key = try #require(ring.devIssuer).signingKey
            let unknownIssuer = try JWT.sign(claims: claims(iss: "https://evil.example"), key: key)
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .wrongIssuer)) { try verifier.verify(token: unknownIssuer) }

            let payload = Base64URL.encode(JSONWriter.write(.object(claims())))
            let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + payload + "."
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .unsupportedAlgorithm)) { try verifier.verify(token: none) }

            let good = try JWT.sign(claims: claims(), key: key)
            let parts = good.split(separator: ".").map(String.init)
            let forged = Base64URL.encode(JSONWriter.write(.object(claims(sub: "mallory"))))
            let tampered = [parts[0], forged, parts[2]].joined(separator: ".")
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .badSignature)) { try verifier.verify(token: tampered) }
            var signature = Array(parts[2])
            signature[10] = signature[10] == "A" ? "B" : "A"
            let badSignature = [parts[0], parts[1], String(signature)].joined(separator: ".")
            #expect(throws: IdentityError.self) { try verifier.verify(token: badSignature) }
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .malformed)) { try verifier.verify(token: "not.a.jwt") }
            #expect(throws: IdentityError(.invalidToken, "", tokenError: .malformed)) { try verifier.verify(token: "abc") }
        }

        @Test func authorizationHeaderMustBeOneBearerToken() throws {
            let (verifier, ring, _) = try ringVerifier()
            let token = try #require(ring.devIssuer).token(subject: "bob", lifetime: 600, now: Self.now)
            #expect(try verifier.verify(authorizationHeaderValues: ["bearer \(token)"]).subject == "bob")
            #expect(try verifier.verify(authorizationHeaderValues: ["BEARER  \(token) "]).subject == "bob")
            #expect(throws: IdentityError(.missingToken, "")) { try verifier.verify(authorizationHeaderValues: []) }
            for value in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer\t\(token)", "Bearer \(token) extra",
                          "Token \(token)", "Bearer \"\(token)\"", "Bearer a,b"] {
                #expect(throws: IdentityError(.malformedAuthorization, ""), "\(value.prefix(12))") {
                    try verifier.verify(authorizationHeaderValues: [value])
                }
            }
            #expect(throws: IdentityError(.malformedAuthorization, "")) {
                try verifier.verify(authorizationHeaderValues: ["Bearer \(token)", "Bearer \(token)"])
            }
            let huge = "Bearer " + String(repeating: "a", count: BearerTokenVerifier.maximumHeaderLength)
            #expect(throws: IdentityError(.malformedAuthorization, "")) { try verifier.verify(authorizationHeaderValues: [huge]) }
        }

        @Test func issuerKeyProblemsAreConfigurationErrors() throws {
            let temp = try TemporaryDirectory()
            let garbage = try temp.write("garbage.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
            let emptyJWKS = try temp.write("empty.json", #"{"keys": []}"#)
            let notJWKS = try temp.write("bad.json", #"{"keys": 1}"#)
            let shortSecret = try temp.write("short.bin", "too short")
            let cases: [(String, IssuerConfiguration.KeySource, [String: String], KASConfigurationError.Code)] = [
                ("missing jwks", .jwksFile(temp.appending("missing.json")), [:], .unreadableFile),
                ("empty jwks", .jwksFile(emptyJWKS), [:], .invalidValue),
                ("not a jwks", .jwksFile(notJWKS), [:], .invalidValue),
                ("bad pem", .pemFile(garbage), [:], .invalidValue),
                ("short secret file", .hs256SecretFile(shortSecret), [:], .invalidValue),
                ("unset secret env", .hs256SecretEnvironment("IDP_SECRET"), [:], .missingValue),
                ("short secret env", .hs256SecretEnvironment("IDP_SECRET"), ["IDP_SECRET": "short"], .invalidValue),
            ]
            for (label, source, environment, code) in cases {
                var configuration = KASConfiguration()
                configuration.issuers = [IssuerConfiguration(issuer: "i", audiences: ["a"], keySource: source)]
                let error = #expect(throws: KASConfigurationError.self, "\(label)") {
                    try BearerTokenVerifier(configuration: configuration, keyRing: nil, environment: environment)
                }
                #expect(error?.code == code, "\(label): \(String(describing: error))")
                #expect(error?.reason.contains("issuers[0]") == true, "\(label)")
                #expect(error?.reason.contains("short") != true || label.contains("file"), "\(label): secret value leaked")
            }
        }
    }
}
