import Foundation
import Testing
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
@testable import MediaDRMJOSE

@Suite struct JWKTests {
    static let rsaN = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"

    /// RFC 7517 Appendix A.1.
    static let publicKeys = """
    {"keys":
      [
        {"kty":"EC",
         "crv":"P-256",
         "x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
         "y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
         "use":"enc",
         "kid":"1"},

        {"kty":"RSA",
         "n": "\(rsaN)",
         "e":"AQAB",
         "alg":"RS256",
         "kid":"2011-04-29"}
      ]
    }
    """

    /// RFC 7517 Appendix A.2.
    static let privateKeys = """
    {"keys":
      [
        {"kty":"EC",
         "crv":"P-256",
         "x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
         "y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
         "d":"870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE",
         "use":"enc",
         "kid":"1"},

        {"kty":"RSA",
         "n":"\(rsaN)",
         "e":"AQAB",
         "d":"X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6NqXSzUvxT0_YSfqijwp3RTzlBaCxWp4doFk5N2o8Gy_nHNKroADIkJ46pRUohsXywbReAdYaMwFs9tv8d_cPVY3i07a3t8MN6TNwm0dSawm9v47UiCl3Sk5ZiG7xojPLu4sbg1U2jx4IBTNBznbJSzFHK66jT8bgkuqsk0GjskDJk19Z4qwjwbsnn4j2WBii3RL-Us2lGVkY8fkFzme1z0HbIkfz0Y6mqnOYtqc0X4jfcKoAC8Q",
         "p":"83i-7IvMGXoMXCskv73TKr8637FiO7Z27zv8oj6pbWUQyLPQBQxtPVnwD20R-60eTDmD2ujnMt5PoqMrm8RfmNhVWDtjjMmCMjOpSXicFHj7XOuVIYQyqVWlWEh6dN36GVZYk93N8Bc9vY41xy8B9RzzOGVQzXvNEvn7O0nVbfs",
         "q":"3dfOR9cuYq-0S-mkFLzgItgMEfFzB2q3hWehMuG0oCuqnb3vobLyumqjb37qSjnPzmVDG4RLGPi_7MqKgTNX-aDZNb-z7D32dNBDU_-VjCGUv4NWzG19eGn9j7C39GvhpQhUTyF1YZdA-KV7TnRCMDYlH1tIJHrJXiTKpcPXwl0",
         "dp":"G4sPXkc6Ya9y8oJW9_ILj4xuppu0lzi_H7VTkS8xj5SdX3coE0oimYwxIi2emTAue0UOa5dpgFGyBJ4c8tQ2VF402XRugKDTP8akYhFo5tAA77Qe_NmtuYZc3C3m3I24G2GvR5sSDxUyAN2zq8Lfn9EUms6rY3Ob8YeiKkTiBj0",
         "dq":"s9lAH9fggBsoFR8Oac2R_E2gw282rT2kGOAhvIllETE1efrA6huUUvMfBcMpn8lqeW6hXjmpmr5BP_c3WLt8oCYwcNEo7Rt2I6hxT8qx6QIBWMB0B0lXAKKC1Fbc5UVIr_sSgK5rqsJhLwPCvCQ0FGhMg-L-TQcA2E4lmLqlLEk",
         "qi":"GyM_p6JrXySiz1toFgKbWV-JdI3jQ4ypu9rbMWx3rQJBfmt0FoYzgUIZEVFEcOqwemRN81zoDAaa-Bk0KWNGDjJHZDdDmFhW3AN7lI-puxk_mHZGJ11rxyR8O55XLSe3SPmRfKwZI6yU24ZxvQKFYItdldUKGzO6Ia6zTKhAVRU",
         "alg":"RS256",
         "kid":"2011-04-29"}
      ]
    }
    """

    /// RFC 7517 Appendix A.3.
    static let symmetricKeys = """
    {"keys":
      [
        {"kty":"oct",
         "alg":"A128KW",
         "k":"GawgguFyGrWKav7AX4VKUg"},

        {"kty":"oct",
         "k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
         "kid":"HMAC key used in JWS spec Appendix A.1 example"}
      ]
    }
    """

    @Test func rfc7517A1PublicKeysParse() throws {
        let set = try JWKSet(jsonData: Data(Self.publicKeys.utf8))
        #expect(set.keys.count == 2)
        let ec = try #require(set.key(withID: "1"))
        #expect(ec.keyType == .ec)
        #expect(ec.use == "enc")
        #expect(ec.p256PublicKey?.rawRepresentation.count == 64)
        let rsa = try #require(set.key(withID: "2011-04-29"))
        #expect(rsa.keyType == .rsa)
        #expect(rsa.algorithm == .rs256)
        #expect(rsa.rsaPublicKey?.keySizeInBits == 2048)
        #expect(rsa.rsaPublicKey?.publicExponent == Data([1, 0, 1]))
        // The encryption key is not offered for signatures; the RS256 key is.
        let verification = try set.verificationKeys()
        #expect(verification.count == 1)
        #expect(verification.first?.keyID == "2011-04-29")
        #expect(verification.first?.algorithm == .rs256)
        #expect(throws: JOSEError(.invalidKey, "")) { try ec.verificationKey() }
    }

    @Test func rfc7517A2PrivateKeysParseAsPublicKeys() throws {
        let privateSet = try JWKSet(jsonData: Data(Self.privateKeys.utf8))
        let publicSet = try JWKSet(jsonData: Data(Self.publicKeys.utf8))
        #expect(privateSet.keys.count == 2)
        // Private members are ignored: the keys are exactly the public ones, and never exported.
        for (a, b) in zip(privateSet.keys, publicSet.keys) {
            #expect(a.thumbprint == b.thumbprint)
            #expect(a.jsonData == b.jsonData)
        }
        let exported = String(decoding: privateSet.jsonData, as: UTF8.self)
        #expect(!exported.contains("\"d\""))
        #expect(!exported.contains("870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE"))
    }

    @Test func rfc7517A3SymmetricKeysParse() throws {
        let set = try JWKSet(jsonData: Data(Self.symmetricKeys.utf8))
        #expect(set.keys.count == 2)
        #expect(set.keys[0].keyType == .oct)
        #expect(set.keys[0].algorithmName == "A128KW")
        #expect(set.keys[0].algorithm == nil)
        #expect(set.keys[0].symmetricKey?.byteCount == 16)
        #expect(set.keys[1].symmetricKey?.byteCount == 64)
        // A128KW is a key-wrapping key: not a verification key; the HMAC key is, and it
        // verifies the RFC 7515 A.1 token.
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try set.keys[0].verificationKey() }
        let keys = try set.verificationKeys()
        #expect(keys.count == 1)
        _ = try JWS.verify(RFC7515.a1Token, keys: keys)
    }

    @Test func rfc7638Thumbprints() throws {
        let rsa = try JWK(jsonData: Data(#"{"kty":"RSA","n":"\#(Self.rsaN)","e":"AQAB","alg":"RS256","kid":"2011-04-29"}"#.utf8))
        #expect(Base64URL.encode(rsa.thumbprint) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        let set = try JWKSet(jsonData: Data(Self.publicKeys.utf8))
        #expect(Base64URL.encode(try #require(set.key(withID: "1")).thumbprint) == "cn-I_WNMClehiVp51i_0VpOENW1upEerA8sEam5hn-s")
    }

    @Test func publicKeysExportAndReimport() throws {
        let rsa = try #require(TestKeys.rsa)
        let ec = try #require(TestKeys.p256)
        let set = JWKSet(keys: [JWK(publicKey: rsa.publicKey, keyID: "r1"), JWK(publicKey: ec.publicKey, keyID: "e1")])
        let reparsed = try JWKSet(jsonData: set.jsonData)
        #expect(reparsed.jsonData == set.jsonData)
        let keys = try reparsed.verificationKeys()
        #expect(keys.map(\.keyID) == ["r1", "e1"])
        #expect(keys.map(\.algorithm) == [.rs256, .es256])
        // Tokens signed by the private keys verify with the exported set.
        _ = try JWS.verify(JWS.sign(payload: Data(), key: JWSSigningKey(rsa: rsa, keyID: "r1")), keys: keys)
        _ = try JWS.verify(JWS.sign(payload: Data(), key: JWSSigningKey(p256: ec, keyID: "e1")), keys: keys)
        let object = try #require(reparsed.keys.first?.jsonObject)
        #expect(object["use"] == .string("sig"))
        #expect(object["alg"] == .string("RS256"))
        #expect(object["d"] == nil)
        // HMAC verification keys are never exported.
        #expect(try TestKeys.hmac().verificationKey.jwk == nil)
        #expect(try TestKeys.rsaKey(keyID: "z").verificationKey.jwk?.keyID == "z")
    }

    @Test func unsupportedKeyTypesAndCurvesAreRefused() throws {
        let x = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", y = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"
        let refused = [
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
            #"{"kty":"EC","crv":"P-384","x":"\#(x)","y":"\#(y)"}"#,
            #"{"kty":"EC","crv":"secp256k1","x":"\#(x)","y":"\#(y)"}"#,
            #"{"kty":"EC","x":"\#(x)","y":"\#(y)"}"#,
            #"{"kty":"ec","crv":"P-256","x":"\#(x)","y":"\#(y)"}"#,
            #"{"kty":"rsa","n":"\#(Self.rsaN)","e":"AQAB"}"#,
            #"{"crv":"P-256","x":"\#(x)","y":"\#(y)"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(x)"}"#,                                  // missing y
            #"{"kty":"EC","crv":"P-256","x":"\#(x.dropFirst(4))","y":"\#(y)"}"#,            // short x
            #"{"kty":"EC","crv":"P-256","x":"AAAA\#(x)","y":"\#(y)"}"#,                       // long x
            #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(x)"}"#,                         // not on the curve
            #"{"kty":"EC","crv":"P-256","x":"\#(x)=","y":"\#(y)"}"#,                        // padding
            #"{"kty":"EC","crv":"P-256","x":"+\#(x.dropFirst())","y":"\#(y)"}"#,
            #"{"kty":"RSA","n":"\#(Self.rsaN)"}"#,                                          // missing e
            #"{"kty":"RSA","n":"\#(Self.rsaN.prefix(172))","e":"AQAB"}"#,                   // 1032-bit modulus
            #"{"kty":"oct","k":""}"#,
        ]
        for text in refused {
            #expect(throws: JOSEError(.invalidKey, "")) { try JWK(jsonData: Data(text.utf8)) }
        }
        let malformed = [
            "", "[]", "{", #"{"kty":"RSA","kty":"RSA","n":"\#(Self.rsaN)","e":"AQAB"}"#, #"{"kty":1}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","kid":5}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","key_ops":"verify"}"#,
            #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","key_ops":["verify","verify"]}"#,
            #"{"kty":"EC","crv":256,"x":"\#(x)","y":"\#(y)"}"#,
        ]
        for text in malformed {
            #expect(throws: JOSEError(.malformed, "")) { try JWK(jsonData: Data(text.utf8)) }
        }
    }

    @Test func verificationKeyRules() throws {
        let x = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", y = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"
        let ec = { (extra: String) throws -> JWK in
            try JWK(jsonData: Data(#"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)"\#(extra)}"#.utf8))
        }
        #expect(try ec("").verificationKey().algorithm == .es256)
        #expect(try ec(#","use":"sig","alg":"ES256","key_ops":["verify"]"#).verificationKey().algorithm == .es256)
        #expect(throws: JOSEError(.invalidKey, "")) { try ec(#","alg":"RS256""#).verificationKey() }
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try ec(#","alg":"ES384""#).verificationKey() }
        #expect(throws: JOSEError(.invalidKey, "")) { try ec(#","key_ops":["sign"]"#).verificationKey() }
        #expect(throws: JOSEError(.invalidKey, "")) { try ec(#","use":"enc""#).verificationKey() }
        // Short HMAC secrets are refused as verification keys.
        let short = try JWK(jsonData: Data(#"{"kty":"oct","k":"GawgguFyGrWKav7AX4VKUg"}"#.utf8))
        #expect(throws: JOSEError(.invalidKey, "")) { try short.verificationKey() }
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSVerificationKey(jwk: short) }
    }

    @Test func jwkSetStrictAndSkipping() throws {
        let text = """
        {"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
                 42,
                 {"kty":"RSA","n":"\(Self.rsaN)","e":"AQAB","kid":"r"}]}
        """
        #expect(throws: JOSEError.self) { try JWKSet(jsonData: Data(text.utf8)) }
        let lenient = try JWKSet(jsonData: Data(text.utf8), skippingUnsupportedKeys: true)
        #expect(lenient.keys.map(\.keyID) == ["r"])
        for bad in ["{}", #"{"keys":{}}"#, "[]", #"{"keys":[1]}"#, #"{"keys":[],"keys":[]}"#] {
            #expect(throws: JOSEError(.malformed, "")) { try JWKSet(jsonData: Data(bad.utf8)) }
        }
        #expect(try JWKSet(jsonData: Data(#"{"keys":[]}"#.utf8)).keys.isEmpty)
    }

    @Test func everyPrefixOfAJWKSetFails() throws {
        let bytes = Array(Self.publicKeys.utf8)
        for length in 0..<bytes.count {
            #expect(throws: JOSEError.self) { try JWKSet(jsonData: bytes[0..<length]) }
        }
        let single = Array(RFC7515.a3JWK.utf8)
        for length in 0..<single.count {
            #expect(throws: JOSEError.self) { try JWK(jsonData: single[0..<length]) }
        }
    }

    @Test func descriptionsHideKeyMaterial() throws {
        let set = try JWKSet(jsonData: Data(Self.symmetricKeys.utf8))
        for key in set.keys {
            #expect(!String(describing: key).contains("GawgguFyGrWKav7AX4VKUg"))
            #expect(!String(describing: key).contains("AyM1"))
        }
        #expect(String(describing: set.keys[1]) == "JWK(oct, kid: HMAC key used in JWS spec Appendix A.1 example)")
    }
}
