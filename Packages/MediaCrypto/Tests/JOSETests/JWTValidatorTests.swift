import Foundation
import Testing
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
@testable import MediaDRMJOSE

@Suite struct JWTValidatorTests {
    static let issuer = "https://idp.example"
    static let audience = "kas"

    static func claims(_ extra: [(String, JSONValue)] = [], dropping: Set<String> = []) -> JSONObject {
        var members: [(String, JSONValue)] = [
            ("iss", .string(issuer)), ("sub", "alice"), ("aud", .string(audience)),
            ("iat", 1000), ("exp", 2000),
        ]
        members.removeAll { dropping.contains($0.0) || extra.map(\.0).contains($0.0) }
        return JSONObject(members + extra)
    }

    static func validator(
        keys: [JWSVerificationKey], now: TimeInterval, skew: TimeInterval = 60,
        requiresExpiration: Bool = true
    ) -> JWTValidator {
        JWTValidator(
            issuer: issuer, keys: keys, audiences: [audience], clockSkew: skew,
            requiresExpiration: requiresExpiration, clock: { Date(timeIntervalSince1970: now) })
    }

    static func token(_ claims: JSONObject, key: JWSSigningKey? = nil) throws -> String {
        try JWT.sign(claims: claims, key: key ?? TestKeys.hmac())
    }

    static func hmacKeys() throws -> [JWSVerificationKey] { [try TestKeys.hmac().verificationKey] }

    @Test(arguments: JWSAlgorithm.allCases)
    func validTokenPerAlgorithm(algorithm: JWSAlgorithm) throws {
        let key = try #require(try TestKeys.all(keyID: "dev").first { $0.algorithm == algorithm })
        let token = try JWT.sign(claims: Self.claims([("jti", "t-1")]), key: key)
        let result = try Self.validator(keys: [key.verificationKey], now: 1500).validate(token)
        #expect(result.issuer == Self.issuer)
        #expect(result.subject == "alice")
        #expect(result.audience == [Self.audience])
        #expect(result.expiresAt == Date(timeIntervalSince1970: 2000))
        #expect(result.issuedAt == Date(timeIntervalSince1970: 1000))
        #expect(result.notBefore == nil)
        #expect(result.jwtID == "t-1")
        #expect(result.header["typ"] == .string("JWT"))
        #expect(result.header["kid"] == .string("dev"))
        #expect(result.entitlements.isEmpty)
        #expect(result.rentals.isEmpty)
    }

    // MARK: Time claims at the exact skew boundaries (skew 60 s)

    @Test func expirationBoundary() throws {
        let token = try Self.token(Self.claims())
        let keys = try Self.hmacKeys()
        _ = try Self.validator(keys: keys, now: 2059.999).validate(token)
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 2060).validate(token) }
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 1e12).validate(token) }
        // Without skew the token dies at exp itself.
        _ = try Self.validator(keys: keys, now: 1999.999, skew: 0).validate(token)
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 2000, skew: 0).validate(token) }
        // A negative skew counts as none, never as extra lifetime or less.
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 2000, skew: -30).validate(token) }
    }

    @Test func notBeforeBoundary() throws {
        let token = try Self.token(Self.claims([("nbf", 1500), ("iat", 900)]))
        let keys = try Self.hmacKeys()
        _ = try Self.validator(keys: keys, now: 1440).validate(token)
        #expect(throws: JOSEError(.notYetValid, "")) { try Self.validator(keys: keys, now: 1439.999).validate(token) }
        _ = try Self.validator(keys: keys, now: 1500, skew: 0).validate(token)
        #expect(throws: JOSEError(.notYetValid, "")) { try Self.validator(keys: keys, now: 1499.999, skew: 0).validate(token) }
    }

    @Test func issuedAtBoundary() throws {
        let token = try Self.token(Self.claims([("iat", 1000), ("exp", 5000)]))
        let keys = try Self.hmacKeys()
        _ = try Self.validator(keys: keys, now: 940).validate(token)          // iat == now + skew
        #expect(throws: JOSEError(.issuedInFuture, "")) { try Self.validator(keys: keys, now: 939.999).validate(token) }
        _ = try Self.validator(keys: keys, now: 1000, skew: 0).validate(token)
        #expect(throws: JOSEError(.issuedInFuture, "")) { try Self.validator(keys: keys, now: 999.5, skew: 0).validate(token) }
    }

    @Test func fractionalNumericDatesAreAccepted() throws {
        let token = try Self.token(Self.claims([("exp", .number(JSONNumber(2000.5)))]))
        let keys = try Self.hmacKeys()
        _ = try Self.validator(keys: keys, now: 2000.4, skew: 0).validate(token)
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 2000.5, skew: 0).validate(token) }
    }

    @Test func expirationIsRequiredUnlessConfiguredOptional() throws {
        let token = try Self.token(Self.claims(dropping: ["exp"]))
        let keys = try Self.hmacKeys()
        #expect(throws: JOSEError(.missingClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(token) }
        let result = try Self.validator(keys: keys, now: 1500, requiresExpiration: false).validate(token)
        #expect(result.expiresAt == nil)
        // Optional means absent is fine, not that a present exp is ignored.
        let expired = try Self.token(Self.claims())
        #expect(throws: JOSEError(.expired, "")) { try Self.validator(keys: keys, now: 3000, requiresExpiration: false).validate(expired) }
    }

    @Test func datesMustBeJSONNumbers() throws {
        let keys = try Self.hmacKeys()
        for name in ["exp", "nbf", "iat"] {
            for value: JSONValue in [.string("2000"), .bool(true), .null, .array([2000]), .object(JSONObject([("t", 1)]))] {
                let token = try Self.token(Self.claims([(name, value)]))
                #expect(throws: JOSEError(.invalidClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(token) }
            }
        }
        // A number too large for a Double is not a date either.
        let hugeExp = try #require(JSONNumber(text: "1e400"))
        let token = try Self.token(Self.claims([("exp", .number(hugeExp))]))
        #expect(throws: JOSEError(.invalidClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(token) }
    }

    // MARK: Issuer, audience, subject

    @Test func issuerChecks() throws {
        let keys = try Self.hmacKeys()
        let wrong = try Self.token(Self.claims([("iss", "https://evil.example")]))
        #expect(throws: JOSEError(.wrongIssuer, "")) { try Self.validator(keys: keys, now: 1500).validate(wrong) }
        let missing = try Self.token(Self.claims(dropping: ["iss"]))
        #expect(throws: JOSEError(.missingClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(missing) }
        let typed = try Self.token(Self.claims([("iss", .array([.string(Self.issuer)]))]))
        #expect(throws: JOSEError(.invalidClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(typed) }
    }

    @Test func audienceChecks() throws {
        let keys = try Self.hmacKeys()
        let v = Self.validator(keys: keys, now: 1500)
        _ = try v.validate(Self.token(Self.claims([("aud", ["other", .string(Self.audience)])])))
        #expect(try v.validate(Self.token(Self.claims([("aud", ["x", "kas"])]))).audience == ["x", "kas"])
        #expect(throws: JOSEError(.wrongAudience, "")) { try v.validate(Self.token(Self.claims([("aud", "other")]))) }
        #expect(throws: JOSEError(.wrongAudience, "")) { try v.validate(Self.token(Self.claims([("aud", ["other"])]))) }
        #expect(throws: JOSEError(.wrongAudience, "")) { try v.validate(Self.token(Self.claims([("aud", [])]))) }
        #expect(throws: JOSEError(.wrongAudience, "")) { try v.validate(Self.token(Self.claims([("aud", "KAS")]))) }
        #expect(throws: JOSEError(.missingClaim, "")) { try v.validate(Self.token(Self.claims(dropping: ["aud"]))) }
        #expect(throws: JOSEError(.invalidClaim, "")) { try v.validate(Self.token(Self.claims([("aud", 7)]))) }
        #expect(throws: JOSEError(.invalidClaim, "")) { try v.validate(Self.token(Self.claims([("aud", ["kas", 7])]))) }
        // A validator with no audiences accepts nothing.
        var none = v
        none.audiences = []
        #expect(throws: JOSEError(.wrongAudience, "")) { try none.validate(Self.token(Self.claims())) }
    }

    @Test func subjectIsRequiredByDefault() throws {
        let keys = try Self.hmacKeys()
        let token = try Self.token(Self.claims(dropping: ["sub"]))
        #expect(throws: JOSEError(.missingClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(token) }
        var lenient = Self.validator(keys: keys, now: 1500)
        lenient.requiresSubject = false
        #expect(try lenient.validate(token).subject == nil)
        let typed = try Self.token(Self.claims([("sub", 42)]))
        #expect(throws: JOSEError(.invalidClaim, "")) { try Self.validator(keys: keys, now: 1500).validate(typed) }
    }

    // MARK: Order: signature before claims

    @Test func signatureIsCheckedBeforeClaims() throws {
        // An expired token with a bad signature reports the signature, and a forged token with
        // the wrong issuer never gets as far as the issuer check.
        let other = try JWSSigningKey(hmac: SecretKey(data: Data(repeating: 0x5a, count: 32)))
        let forged = try JWT.sign(claims: Self.claims([("iss", "x"), ("exp", 1)]), key: other)
        #expect(throws: JOSEError(.badSignature, "")) { try Self.validator(keys: Self.hmacKeys(), now: 1500).validate(forged) }
        let none = craft(header: #"{"alg":"none"}"#, payload: String(decoding: JSONWriter.write(.object(Self.claims())), as: UTF8.self), signature: Data())
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try Self.validator(keys: Self.hmacKeys(), now: 1500).validate(none) }
    }

    @Test func payloadMustBeAJSONObject() throws {
        let key = try TestKeys.hmac()
        let v = Self.validator(keys: [key.verificationKey], now: 1500)
        for payload in ["", "not json", "[]", "\"x\"", "1", #"{"iss":"a","iss":"b"}"#, #"{"sub":"a"} {}"#] {
            let token = try JWS.sign(payload: Data(payload.utf8), key: key)
            #expect(throws: JOSEError(.malformed, "")) { try v.validate(token) }
        }
    }

    @Test func everyPrefixOfAValidJWTFails() throws {
        let key = try TestKeys.p256Key(keyID: "k")
        let token = try JWT.sign(claims: Self.claims(), key: key)
        let v = Self.validator(keys: [key.verificationKey], now: 1500)
        _ = try v.validate(token)
        let bytes = Array(token.utf8)
        for length in 0..<bytes.count {
            #expect(throws: JOSEError.self) { try v.validate(String(decoding: bytes[0..<length], as: UTF8.self)) }
        }
    }

    // MARK: Several issuers

    @Test func severalIssuersEachWithTheirOwnKeys() throws {
        let a = try TestKeys.rsaKey(keyID: "a-1")
        let b = try TestKeys.p256Key(keyID: "b-1")
        let v = JWTValidator(
            issuers: [JWTIssuer("https://a", keys: [a.verificationKey]), JWTIssuer("https://b", keys: [b.verificationKey])],
            audiences: ["kas"], clock: { Date(timeIntervalSince1970: 1500) })
        #expect(try v.validate(JWT.sign(claims: Self.claims([("iss", "https://a")]), key: a)).issuer == "https://a")
        #expect(try v.validate(JWT.sign(claims: Self.claims([("iss", "https://b")]), key: b)).issuer == "https://b")
        // Issuer b's key cannot vouch for a token that claims to come from a.
        #expect(throws: JOSEError(.wrongIssuer, "")) { try v.validate(JWT.sign(claims: Self.claims([("iss", "https://a")]), key: b)) }
        // Two issuers sharing one key: each may use it.
        let shared = try TestKeys.hmac()
        let s = JWTValidator(
            issuers: [JWTIssuer("one", keys: [shared.verificationKey]), JWTIssuer("two", keys: [shared.verificationKey])],
            audiences: ["kas"], clock: { Date(timeIntervalSince1970: 1500) })
        #expect(try s.validate(JWT.sign(claims: Self.claims([("iss", "two")]), key: shared)).issuer == "two")
        #expect(throws: JOSEError(.wrongIssuer, "")) { try s.validate(JWT.sign(claims: Self.claims([("iss", "three")]), key: shared)) }
    }

    // MARK: Project claims

    @Test func entitlementsAndRentals() throws {
        let policy = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
        let token = try Self.token(Self.claims([
            ("entitlements", ["https://example.com/attr/tier/value/gold", "https://example.com/attr/region/value/eu"]),
            ("rentals", .object(JSONObject([(policy.lowercased(), 1_700_000_000), ("123e4567-e89b-12d3-a456-426614174000", .number(JSONNumber(1.5)))]))),
            ("custom", .object(JSONObject([("x", true)]))),
        ]))
        let result = try Self.validator(keys: Self.hmacKeys(), now: 1500).validate(token)
        #expect(result.entitlements == ["https://example.com/attr/tier/value/gold", "https://example.com/attr/region/value/eu"])
        #expect(result.rentals.count == 2)
        #expect(result.rentalPurchaseTime(policyUUID: policy) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(result.rentalPurchaseTime(policyUUID: policy.lowercased()) == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(result.rentalPurchaseTime(policyUUID: "00000000-0000-0000-0000-000000000000") == nil)
        #expect(result.rentalPurchaseTime(policyUUID: "not a uuid") == nil)
        #expect(result["custom"] == .object(JSONObject([("x", true)])))
        #expect(result.raw["sub"] == .string("alice"))
    }

    @Test func malformedProjectClaimsAreRefused() throws {
        let v = Self.validator(keys: try Self.hmacKeys(), now: 1500)
        let bad: [(String, JSONValue)] = [
            ("entitlements", "gold"), ("entitlements", ["gold", 1]), ("entitlements", .object(JSONObject())),
            ("rentals", ["6f9619ff-8b86-d011-b42d-00c04fc964ff"]),
            ("rentals", .object(JSONObject([("not-a-uuid", 1)]))),
            ("rentals", .object(JSONObject([("6f9619ff-8b86-d011-b42d-00c04fc964ff", "1700000000")]))),
            ("rentals", .object(JSONObject([("6f9619ff-8b86-d011-b42d-00c04fc964ff", -1)]))),
            ("rentals", .object(JSONObject([("6f9619ff-8b86-d011-b42d-00c04fc964ff", 1), ("6F9619FF-8B86-D011-B42D-00C04FC964FF", 2)]))),
        ]
        for claim in bad {
            #expect(throws: JOSEError(.invalidClaim, "")) { try v.validate(Self.token(Self.claims([claim]))) }
        }
    }

    // MARK: Helpers for tokens verified by other means

    @Test func unverifiedClaimsAndCheckTimes() throws {
        let token = try Self.token(Self.claims([("exp", 2000)]))
        let claims = try JWT.unverifiedClaims(of: token)
        #expect(claims["sub"] == .string("alice"))
        let v = Self.validator(keys: [], now: 2100)
        #expect(throws: JOSEError(.expired, "")) { try v.checkTimes(claims) }
        let times = try Self.validator(keys: [], now: 1500).checkTimes(claims)
        #expect(times.expiresAt == Date(timeIntervalSince1970: 2000))
        #expect(throws: JOSEError(.malformed, "")) { try JWT.unverifiedClaims(of: JWS.sign(payload: Data("[]".utf8), key: TestKeys.hmac())) }
        #expect(JWT.numericDate(Date(timeIntervalSince1970: 1234.9)) == .number(JSONNumber(1234)))
    }

    @Test func rfc7515A1AsAJWT() throws {
        // The RFC token: iss "joe", exp 1300819380, no aud or sub.
        let key = try JWK(jsonData: Data(RFC7515.a1JWK.utf8)).verificationKey()
        var v = JWTValidator(issuer: "joe", keys: [key], audiences: ["x"], clock: { Date(timeIntervalSince1970: 1300819000) })
        #expect(throws: JOSEError(.missingClaim, "")) { try v.validate(RFC7515.a1Token) }
        v.clock = { Date(timeIntervalSince1970: 1300819440) }
        #expect(throws: JOSEError(.missingClaim, "")) { try v.validate(RFC7515.a1Token) }
        let claims = try JWT.unverifiedClaims(of: RFC7515.a1Token)
        #expect(throws: JOSEError(.expired, "")) { try v.checkTimes(claims) }
        v.clock = { Date(timeIntervalSince1970: 1300819439) }
        _ = try v.checkTimes(claims)
    }
}
