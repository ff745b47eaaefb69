import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import Testing
@testable import MediaDRMTDF

@Suite("EC key wrap (ec-wrapped and EC rewrap)")
struct ECWrapTests {
    @Test("round trip, and a different recipient cannot open it")
    func roundTrip() throws {
        let key = SecretKey(data: pattern(32))
        let wrapped = try ECWrap.wrap(key, to: TestKeys.ec.publicKey)
        #expect(wrapped.wrappedKey.count == 12 + 32 + 16)
        #expect(try ECWrap.unwrap(wrapped.wrappedKey, ephemeralPublicKey: wrapped.ephemeralPublicKey, with: TestKeys.ec) == key)
        #expect(throws: TDFError(.keyUnwrapFailure, "")) {
            try ECWrap.unwrap(wrapped.wrappedKey, ephemeralPublicKey: wrapped.ephemeralPublicKey, with: TestKeys.otherEC)
        }
        var tampered = wrapped.wrappedKey
        tampered[20] ^= 1
        #expect(throws: TDFError(.keyUnwrapFailure, "")) {
            try ECWrap.unwrap(tampered, ephemeralPublicKey: wrapped.ephemeralPublicKey, with: TestKeys.ec)
        }
        #expect(throws: TDFError(.keyUnwrapFailure, "")) {
            try ECWrap.unwrap(Data(count: 10), ephemeralPublicKey: wrapped.ephemeralPublicKey, with: TestKeys.ec)
        }
    }

    /// ECDH by `openssl pkeyutl -derive` and HKDF by `openssl kdf` give the key that opens the
    /// wrapped bytes: the construction is the documented one, not merely self-consistent.
    @Test("derivation agrees with openssl ECDH and HKDF")
    func opensslDerivation() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kasKey = directory.appendingPathComponent("kas.pem")
        let peer = directory.appendingPathComponent("eph.pem")
        try Data(TestKeys.ec.pemRepresentation.utf8).write(to: kasKey)

        let key = SecretKey(data: pattern(32, seed: 5))
        let access = try KeyAccessObject.wrapping(key, to: .ec(TestKeys.ec.publicKey), kasURL: "https://kas", policyBase64: "e30=")
        try Data(try #require(access.ephemeralPublicKey).utf8).write(to: peer)
        let secret = try openssl(["pkeyutl", "-derive", "-inkey", kasKey.path, "-peerkey", peer.path])
        #expect(secret.count == 32)
        let salt = try openssl(["dgst", "-sha256", "-binary"], input: Data("TDF".utf8))
        let derived = try openssl(["kdf", "-keylen", "32", "-binary", "-kdfopt", "digest:SHA256",
                                   "-kdfopt", "hexkey:\(Hex.encode(secret))", "-kdfopt", "hexsalt:\(Hex.encode(salt))", "HKDF"])
        let box = try AESCipher.GCM.SealedBox(combined: try Base64.decode(access.wrappedKey))
        let opened = try AESCipher.GCM.open(box, using: SecretKey(data: derived))
        #expect(opened == pattern(32, seed: 5))
        #expect(try access.unwrap(with: .ec(TestKeys.ec)) == key)
    }

    @Test("KAS key kinds are recognised from PEM")
    func keyKinds() throws {
        guard case .rsa = try KASPublicKey(pemRepresentation: TestKeys.rsa.publicKey.pemRepresentation) else {
            Issue.record("RSA public key not recognised"); return
        }
        guard case .ec = try KASPublicKey(pemRepresentation: TestKeys.ec.publicKey.pemRepresentation) else {
            Issue.record("EC public key not recognised"); return
        }
        guard case .rsa = try KASPrivateKey(pemRepresentation: TestKeys.rsa.pemRepresentation) else {
            Issue.record("RSA private key not recognised"); return
        }
        guard case .ec = try KASPrivateKey(pemRepresentation: TestKeys.ec.pemRepresentation) else {
            Issue.record("EC private key not recognised"); return
        }
        #expect(throws: TDFError(.invalidArgument, "")) { try KASPublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n") }
    }
}
