import Foundation
import Testing
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
@testable import MediaDRMJOSE

@Suite struct JWSTests {
    // MARK: RFC 7515 Appendix A

    @Test func rfc7515A1HS256Verifies() throws {
        let key = try JWK(jsonData: Data(RFC7515.a1JWK.utf8)).verificationKey()
        #expect(key.algorithm == .hs256)
        let (header, payload) = try JWS.verify(RFC7515.a1Token, key: key)
        #expect(String(decoding: payload, as: UTF8.self) == RFC7515.payload)
        #expect(header["typ"] == .string("JWT"))
        #expect(header["alg"] == .string("HS256"))
    }

    @Test func rfc7515A2RS256VerifiesWithItsJWK() throws {
        let jwk = try JWK(jsonData: Data(RFC7515.a2JWK.utf8))
        let key = try jwk.verificationKey()
        #expect(key.algorithm == .rs256)
        #expect(jwk.rsaPublicKey?.keySizeInBits == 2048)
        let (_, payload) = try JWS.verify(RFC7515.a2Token, key: key)
        #expect(String(decoding: payload, as: UTF8.self) == RFC7515.payload)
        // Exported JWK carries public members only.
        let exported = String(decoding: jwk.jsonData, as: UTF8.self)
        #expect(!exported.contains("\"d\""))
        #expect(!exported.contains("\"p\""))
    }

    @Test func rfc7515A3ES256VerifiesWithItsJWK() throws {
        let key = try JWK(jsonData: Data(RFC7515.a3JWK.utf8)).verificationKey()
        #expect(key.algorithm == .es256)
        let (_, payload) = try JWS.verify(RFC7515.a3Token, key: key)
        #expect(String(decoding: payload, as: UTF8.self) == RFC7515.payload)
    }

    @Test func rfcVectorsFailUnderTheWrongKeys() throws {
        let hs = try JWK(jsonData: Data(RFC7515.a1JWK.utf8)).verificationKey()
        let rs = try JWK(jsonData: Data(RFC7515.a2JWK.utf8)).verificationKey()
        let es = try JWK(jsonData: Data(RFC7515.a3JWK.utf8)).verificationKey()
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(RFC7515.a2Token, keys: [hs, es]) }
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(RFC7515.a1Token, keys: [rs, es]) }
        // With every key configured, each token verifies under its own one.
        for token in [RFC7515.a1Token, RFC7515.a2Token, RFC7515.a3Token] {
            _ = try JWS.verify(token, keys: [hs, rs, es])
        }
    }

    @Test func signingReproducesTheA1Signature() throws {
        // HS256 is deterministic: signing the RFC's exact signing input gives the RFC's MAC.
        let jwk = try JWK(jsonData: Data(RFC7515.a1JWK.utf8))
        let key = try #require(jwk.symmetricKey)
        let parts = RFC7515.a1Token.split(separator: ".")
        let mac = HMACSHA256.authenticationCode(Data((parts[0] + "." + parts[1]).utf8), key: key)
        #expect(Base64URL.encode(mac) == String(parts[2]))
    }

    // MARK: Round trips

    @Test(arguments: JWSAlgorithm.allCases)
    func roundTrip(algorithm: JWSAlgorithm) throws {
        let key = try #require(try TestKeys.all(keyID: "k1").first { $0.algorithm == algorithm })
        let payload = Data("any bytes \u{0} \u{ff}".utf8)
        let token = try JWS.sign(payload: payload, header: JSONObject([("typ", "x")]), key: key)
        let (header, decoded) = try JWS.verify(token, key: key.verificationKey)
        #expect(decoded == payload)
        #expect(header["alg"] == .string(algorithm.rawValue))
        #expect(header["kid"] == .string("k1"))
        #expect(header["typ"] == .string("x"))
        #expect(token.split(separator: ".", omittingEmptySubsequences: false).count == 3)
        #expect(!token.contains("="))
    }

    @Test func emptyPayloadRoundTrips() throws {
        let key = try TestKeys.hmac()
        let token = try JWS.sign(payload: Data(), key: key)
        #expect(try JWS.verify(token, key: key.verificationKey).payload.isEmpty)
    }

    @Test func signRefusesAConflictingAlgAndCrit() throws {
        let key = try TestKeys.hmac()
        #expect(throws: JOSEError(.algorithmMismatch, "")) {
            try JWS.sign(payload: Data(), header: JSONObject([("alg", "RS256")]), key: key)
        }
        #expect(throws: JOSEError(.unsupportedHeader, "")) {
            try JWS.sign(payload: Data(), header: JSONObject([("crit", ["exp"])]), key: key)
        }
        #expect(throws: JOSEError(.malformed, "")) {
            try JWS.sign(payload: Data(), header: JSONObject([("kid", 5)]), key: key)
        }
    }

    // MARK: Refusals

    @Test func algNoneIsRefused() throws {
        let key = try TestKeys.hmac()
        for alg in ["none", "None", "NONE", "nOnE"] {
            let token = craft(header: #"{"alg":"\#(alg)"}"#, payload: "{}", signature: Data())
            #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try JWS.verify(token, key: key.verificationKey) }
            let token2 = craft(header: #"{"alg":"\#(alg)"}"#, payload: "{}", signature: Data([1]))
            #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try JWS.verify(token2, key: key.verificationKey) }
        }
    }

    @Test func unknownAlgorithmsAreRefused() throws {
        let key = try TestKeys.hmac()
        for alg in ["HS512", "RS384", "PS256", "EdDSA", "hs256", ""] {
            let token = craftHS256(header: #"{"alg":"\#(alg)"}"#, payload: "{}", key: TestKeys.hmacBytes)
            #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try JWS.verify(token, key: key.verificationKey) }
        }
    }

    @Test func algorithmConfusionWithTheRSAPublicKeyAsHMACSecretIsRefused() throws {
        let rsa = try #require(TestKeys.rsa).publicKey
        let pem = Data(rsa.pemRepresentation.utf8)
        // The attacker MACs an HS256 token with the public key's PEM text...
        let forged = craftHS256(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"mallory"}"#, key: pem)
        // ...a verifier holding the RSA key never uses it as an HMAC secret,
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(forged, key: JWSVerificationKey(rsa: rsa)) }
        // also when the token names the key by kid,
        let forgedKid = craftHS256(header: #"{"alg":"HS256","kid":"rsa1"}"#, payload: "{}", key: pem)
        #expect(throws: JOSEError(.algorithmMismatch, "")) {
            try JWS.verify(forgedKid, key: JWSVerificationKey(rsa: rsa, keyID: "rsa1"))
        }
        // and an HMAC key made from the public key's PEM (or DER-less SSH text) is refused outright.
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSVerificationKey(hmac: SecretKey(data: pem)) }
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSSigningKey(hmac: SecretKey(data: pem)) }
        let ssh = Data(("ssh-rsa " + String(repeating: "A", count: 64)).utf8)
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSVerificationKey(hmac: SecretKey(data: ssh)) }
    }

    @Test func asymmetricTokensAreRefusedByHMACKeys() throws {
        let hmac = try TestKeys.hmac().verificationKey
        let rsToken = try JWS.sign(payload: Data("{}".utf8), key: TestKeys.rsaKey())
        let esToken = try JWS.sign(payload: Data("{}".utf8), key: TestKeys.p256Key())
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(rsToken, key: hmac) }
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(esToken, key: hmac) }
        // An RSA key cannot verify ES256 and vice versa.
        let rsaKey = try TestKeys.rsaKey().verificationKey
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(esToken, key: rsaKey) }
    }

    @Test func kidSelectsTheKeyAndItsAlgorithm() throws {
        let hs = try TestKeys.hmac(keyID: "a")
        let rs = try TestKeys.rsaKey(keyID: "b")
        let keys = [hs.verificationKey, rs.verificationKey]
        _ = try JWS.verify(JWS.sign(payload: Data(), key: hs), keys: keys)
        _ = try JWS.verify(JWS.sign(payload: Data(), key: rs), keys: keys)
        // A token that claims kid "b" (the RSA key) but alg HS256.
        let token = craftHS256(header: #"{"alg":"HS256","kid":"b"}"#, payload: "{}", key: TestKeys.hmacBytes)
        #expect(throws: JOSEError(.algorithmMismatch, "")) { try JWS.verify(token, keys: keys) }
        // A kid nobody has.
        let unknown = craftHS256(header: #"{"alg":"HS256","kid":"zzz"}"#, payload: "{}", key: TestKeys.hmacBytes)
        #expect(throws: JOSEError(.unknownKey, "")) { try JWS.verify(unknown, keys: keys) }
        // No keys at all.
        #expect(throws: JOSEError(.unknownKey, "")) { try JWS.verify(RFC7515.a1Token, keys: []) }
    }

    @Test func aKeyWithoutIDServesTokensWhoseKidIsUnknown() throws {
        let signer = try TestKeys.p256Key(keyID: "idp-2024")
        let token = try JWS.sign(payload: Data("x".utf8), key: signer)
        let pemKey = try JWSVerificationKey(pemRepresentation: try #require(TestKeys.p256).publicKey.pemRepresentation)
        #expect(pemKey.keyID == nil)
        #expect(try JWS.verify(token, key: pemKey).payload == Data("x".utf8))
    }

    @Test func keysEmbeddedInTheHeaderAreNeverTrusted() throws {
        // The attacker signs with their own key and ships its public half in `jwk` (or points
        // `jku`/`x5u` at it); only configured keys count.
        let attacker = try ECP256.Signing.PrivateKey()
        let jwk = JWK(publicKey: attacker.publicKey).jsonObject
        let header = JSONObject([("jwk", .object(jwk)), ("jku", "https://evil.example/jwks"), ("x5u", "https://evil.example/c")])
        let token = try JWS.sign(payload: Data("{}".utf8), header: header, key: JWSSigningKey(p256: attacker))
        let configured = try TestKeys.p256Key().verificationKey
        #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(token, key: configured) }
    }

    @Test func headerKidOverridesTheKeysOwn() throws {
        let key = try TestKeys.hmac(keyID: "own")
        let token = try JWS.sign(payload: Data(), header: JSONObject([("kid", "chosen")]), key: key)
        #expect(try JWS.unverifiedContents(of: token).header["kid"] == .string("chosen"))
        #expect(try JWS.unverifiedContents(of: JWS.sign(payload: Data(), key: key)).header["kid"] == .string("own"))
    }

    @Test func tamperedTokensFailTheSignature() throws {
        for key in try TestKeys.all() {
            let token = try JWS.sign(payload: Data(#"{"sub":"alice"}"#.utf8), key: key)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let otherPayload = Base64URL.encode(Data(#"{"sub":"admin"}"#.utf8))
            let swapped = parts[0] + "." + otherPayload + "." + parts[2]
            #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(swapped, key: key.verificationKey) }
            var signature = try Base64URL.decode(parts[2])
            signature[signature.count / 2] ^= 0x01
            let flipped = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
            #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(flipped, key: key.verificationKey) }
            // Signed by another key of the same algorithm.
            let other = try otherKey(like: key.algorithm)
            let foreign = try JWS.sign(payload: Data(), key: other)
            #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(foreign, key: key.verificationKey) }
        }
    }

    private func otherKey(like algorithm: JWSAlgorithm) throws -> JWSSigningKey {
        switch algorithm {
        case .hs256: try JWSSigningKey(hmac: SecretKey(data: Data(repeating: 9, count: 32)))
        case .rs256: JWSSigningKey(rsa: try RSA.PrivateKey(keySize: 2048))
        case .es256: JWSSigningKey(p256: try ECP256.Signing.PrivateKey())
        }
    }

    @Test func wrongLengthES256SignaturesAreRefused() throws {
        let key = try TestKeys.p256Key()
        let token = try JWS.sign(payload: Data("p".utf8), key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let raw = try Base64URL.decode(parts[2])
        #expect(raw.count == 64)
        let der = try ECP256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        var variants: [Data] = [raw.prefix(63), raw + Data([0]), Data([0]) + raw, der, Data(), raw.prefix(32)]
        variants.append(Data(repeating: 0, count: 64))
        for signature in variants {
            let bad = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
            #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(bad, key: key.verificationKey) }
        }
        // The raw form itself still verifies.
        _ = try JWS.verify(token, key: key.verificationKey)
    }

    @Test func wrongLengthRS256AndHS256SignaturesAreRefused() throws {
        for key in [try TestKeys.rsaKey(), try TestKeys.hmac()] {
            let token = try JWS.sign(payload: Data(), key: key)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let signature = try Base64URL.decode(parts[2])
            for bad in [signature.dropLast(), signature + Data([0]), Data([0]) + signature] {
                let text = parts[0] + "." + parts[1] + "." + Base64URL.encode(bad)
                #expect(throws: JOSEError(.badSignature, "")) { try JWS.verify(text, key: key.verificationKey) }
            }
        }
    }

    @Test func critAndUnencodedPayloadHeadersAreRefused() throws {
        let key = try TestKeys.hmac()
        for header in [#"{"alg":"HS256","crit":["exp"],"exp":1}"#, #"{"alg":"HS256","crit":[]}"#,
                       #"{"alg":"HS256","b64":false,"crit":["b64"]}"#, #"{"alg":"HS256","b64":false}"#] {
            let token = craftHS256(header: header, payload: "{}", key: TestKeys.hmacBytes)
            #expect(throws: JOSEError(.unsupportedHeader, "")) { try JWS.verify(token, key: key.verificationKey) }
        }
    }

    @Test func malformedSegmentsAreRefused() throws {
        let key = try TestKeys.hmac().verificationKey
        let good = try JWS.sign(payload: Data("{}".utf8), key: TestKeys.hmac())
        let parts = good.split(separator: ".").map(String.init)
        let malformed: [String] = [
            "", ".", "..", "...", good + ".", "." + good, good + ".x", parts[0] + "." + parts[1],
            parts[0] + ".." + parts[1] + "." + parts[2],
            parts[0] + "=." + parts[1] + "." + parts[2],                 // padding
            parts[0] + "." + parts[1] + "." + parts[2] + "=",
            parts[0] + "." + parts[1] + "+." + parts[2],                  // standard alphabet
            parts[0] + " ." + parts[1] + "." + parts[2],                  // whitespace
            parts[0] + "." + parts[1] + "." + parts[2] + "\n",
            "é" + good,                                                   // non-ASCII
            parts[0] + "A." + parts[1] + "." + parts[2],                 // impossible length
            "." + parts[1] + "." + parts[2],                              // empty header
        ]
        for text in malformed {
            #expect(throws: JOSEError(.malformed, "")) { try JWS.verify(text, key: key) }
        }
        let mac = TestKeys.hmacBytes
        let headers = [
            "[]", "\"HS256\"", "1", "null", "{", #"{"alg":"HS256"} x"#,            // not an object
            #"{"alg":"HS256","alg":"HS256"}"#, #"{"alg":"HS256","kid":"a","kid":"a"}"#,  // duplicates
            #"{"alg":"HS256","al\u0067":"none"}"#,                                // duplicate after unescaping
            "{}", #"{"typ":"JWT"}"#, #"{"alg":null}"#, #"{"alg":256}"#, #"{"alg":["HS256"]}"#,
            #"{"alg":"HS256","kid":7}"#,
        ]
        for header in headers {
            let token = craftHS256(header: header, payload: "{}", key: mac)
            #expect(throws: JOSEError(.malformed, "")) { try JWS.verify(token, key: key) }
        }
        // Non-canonical trailing bits: a 32-byte MAC is 43 characters whose last one carries two
        // unused bits that must be zero.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastIndex = try #require(parts[2].last.flatMap { alphabet.firstIndex(of: $0) })
        let tweaked = String(parts[2].dropLast()) + String(alphabet[lastIndex | 1])
        #expect(throws: JOSEError(.malformed, "")) { try JWS.verify(parts[0] + "." + parts[1] + "." + tweaked, key: key) }
        // Oversized tokens are refused before decoding.
        let huge = String(repeating: "A", count: JWS.maximumCompactLength) + ".."
        #expect(throws: JOSEError(.malformed, "")) { try JWS.verify(huge, key: key) }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func everyPrefixOfAValidTokenFails(algorithm: JWSAlgorithm) throws {
        let key = try #require(try TestKeys.all(keyID: "kid-1").first { $0.algorithm == algorithm })
        let token = try JWS.sign(payload: Data(#"{"sub":"alice","exp":99999999999}"#.utf8), key: key)
        let verifier = key.verificationKey
        let bytes = Array(token.utf8)
        for length in 0..<bytes.count {
            let prefix = String(decoding: bytes[0..<length], as: UTF8.self)
            #expect(throws: JOSEError.self) { try JWS.verify(prefix, key: verifier) }
        }
        _ = try JWS.verify(token, key: verifier)
    }

    @Test func errorReasonsNeverContainTheToken() throws {
        let key = try TestKeys.hmac()
        let token = try JWS.sign(payload: Data(#"{"sub":"secret-viewer"}"#.utf8), key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let tampered = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
        let verifier = try TestKeys.rsaKey().verificationKey
        for text in [tampered, parts[0] + "." + parts[1], token + "x", token] {
            do {
                _ = try JWS.verify(text, key: verifier)
                Issue.record("accepted a bad token")
            } catch {
                for part in parts { #expect(!error.reason.contains(part)) }
                #expect(!error.description.contains("secret-viewer"))
            }
        }
    }

    @Test func unverifiedContentsReadsButStillChecksStructure() throws {
        let token = try JWS.sign(payload: Data("hello".utf8), key: TestKeys.rsaKey(keyID: "k"))
        let (header, payload) = try JWS.unverifiedContents(of: token)
        #expect(header["kid"] == .string("k"))
        #expect(payload == Data("hello".utf8))
        let none = craft(header: #"{"alg":"none"}"#, payload: "{}", signature: Data())
        #expect(throws: JOSEError(.unsupportedAlgorithm, "")) { try JWS.unverifiedContents(of: none) }
    }

    @Test func hmacKeysShorterThan32BytesAreRefused() throws {
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSSigningKey(hmac: SecretKey(data: Data(repeating: 1, count: 31))) }
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSVerificationKey(hmac: SecretKey(data: Data(repeating: 1, count: 16))) }
        _ = try JWSVerificationKey(hmac: SecretKey(data: Data(repeating: 1, count: 32)))
    }

    @Test func keysFromPEM() throws {
        let rsa = try #require(TestKeys.rsa)
        let ec = try #require(TestKeys.p256)
        #expect(try JWSSigningKey(pemRepresentation: rsa.pemRepresentation).algorithm == .rs256)
        #expect(try JWSSigningKey(pemRepresentation: ec.pemRepresentation).algorithm == .es256)
        #expect(try JWSVerificationKey(pemRepresentation: rsa.publicKey.pemRepresentation, keyID: "r").algorithm == .rs256)
        #expect(try JWSVerificationKey(pemRepresentation: ec.publicKey.pemRepresentation).algorithm == .es256)
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSVerificationKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: JOSEError(.invalidKey, "")) { try JWSSigningKey(pemRepresentation: rsa.publicKey.pemRepresentation) }
        let description = String(describing: try JWSSigningKey(pemRepresentation: rsa.pemRepresentation, keyID: "x"))
        #expect(description == "JWSSigningKey(RS256, kid: x)")
    }

    // MARK: openssl CLI cross-checks

    @Test(arguments: [JWSAlgorithm.rs256, .es256])
    func opensslSignaturesVerifyHere(algorithm: JWSAlgorithm) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyPath = dir.appendingPathComponent("key.pem").path
        let pubPath = dir.appendingPathComponent("pub.pem").path
        let inputPath = dir.appendingPathComponent("input").path
        let sigPath = dir.appendingPathComponent("sig").path
        let generate = algorithm == .rs256
            ? ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", keyPath]
            : ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyPath]
        #expect(try openssl(generate) == 0)
        #expect(try openssl(["pkey", "-in", keyPath, "-pubout", "-out", pubPath]) == 0)

        let header = Base64URL.encode(Data(#"{"alg":"\#(algorithm.rawValue)","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Data(#"{"iss":"openssl","sub":"alice"}"#.utf8))
        let signingInput = header + "." + payload
        try Data(signingInput.utf8).write(to: URL(fileURLWithPath: inputPath))
        #expect(try openssl(["dgst", "-sha256", "-sign", keyPath, "-out", sigPath, inputPath]) == 0)
        var signature = try Data(contentsOf: URL(fileURLWithPath: sigPath))
        if algorithm == .es256 {
            // openssl writes ECDSA signatures as DER; JWS carries the raw r ‖ s.
            signature = try ECP256.Signing.ECDSASignature(derRepresentation: signature).rawRepresentation
            #expect(signature.count == 64)
        }
        let token = signingInput + "." + Base64URL.encode(signature)
        let key = try JWSVerificationKey(pemRepresentation: String(contentsOfFile: pubPath, encoding: .utf8))
        #expect(key.algorithm == algorithm)
        let (_, decoded) = try JWS.verify(token, key: key)
        #expect(decoded == Data(#"{"iss":"openssl","sub":"alice"}"#.utf8))

        // And the reverse: a token signed here verifies with openssl.
        let signer = try JWSSigningKey(pemRepresentation: String(contentsOfFile: keyPath, encoding: .utf8))
        let ours = try JWS.sign(payload: Data("from swift".utf8), key: signer)
        let parts = ours.split(separator: ".").map(String.init)
        try Data((parts[0] + "." + parts[1]).utf8).write(to: URL(fileURLWithPath: inputPath))
        var ourSignature = try Base64URL.decode(parts[2])
        if algorithm == .es256 {
            ourSignature = try ECP256.Signing.ECDSASignature(rawRepresentation: ourSignature).derRepresentation
        }
        try ourSignature.write(to: URL(fileURLWithPath: sigPath))
        #expect(try openssl(["dgst", "-sha256", "-verify", pubPath, "-signature", sigPath, inputPath]) == 0)
        // openssl refuses it once the input changes: the check above can fail.
        try Data((parts[0] + "." + parts[1] + "x").utf8).write(to: URL(fileURLWithPath: inputPath))
        #expect(try openssl(["dgst", "-sha256", "-verify", pubPath, "-signature", sigPath, inputPath]) != 0)
    }
}
