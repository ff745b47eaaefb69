import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct RSATests {
    private static let paddings: [RSA.Padding] = [.oaepSHA1, .oaepSHA256]

    private func fixtureKey() throws -> RSA.PrivateKey {
        try RSA.PrivateKey(pemRepresentation: try AsymFixtures.shared.get().text("rsa2048.pem"))
    }

    /// The pkeyutl options for a padding; SHA-1 is OpenSSL's OAEP default.
    private func pkeyoptArguments(_ padding: RSA.Padding) -> [String] {
        switch padding {
        case .oaepSHA1: return ["-pkeyopt", "rsa_padding_mode:oaep"]
        case .oaepSHA256: return ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256"]
        }
    }

    // MARK: OAEP

    @Test(arguments: paddings)
    func oaepRoundTrip(padding: RSA.Padding) throws {
        let key = try fixtureKey()
        let limit = padding == .oaepSHA1 ? 214 : 190
        for plaintext in [Data(), Data(repeating: 0x5A, count: 16), try SecureRandom.data(count: 32), Data(repeating: 0xFF, count: limit)] {
            let ciphertext = try key.publicKey.encrypt(plaintext, padding: padding)
            #expect(ciphertext.count == 256)
            #expect(try key.decrypt(ciphertext, padding: padding) == plaintext)
        }
        // OAEP is randomized.
        let contentKey = try SecureRandom.data(count: 16)
        #expect(try key.publicKey.encrypt(contentKey, padding: padding) != key.publicKey.encrypt(contentKey, padding: padding))
        #expect(throws: CryptoError(.invalidInput, "")) {
            try key.publicKey.encrypt(Data(repeating: 1, count: limit + 1), padding: padding)
        }
    }

    @Test func wrongPaddingTamperingAndSizeAreAuthenticationFailures() throws {
        let key = try fixtureKey()
        let contentKey = try SecureRandom.data(count: 16)
        let ciphertext = try key.publicKey.encrypt(contentKey, padding: .oaepSHA1)
        #expect(throws: CryptoError(.authenticationFailure, "")) { try key.decrypt(ciphertext, padding: .oaepSHA256) }
        var tampered = ciphertext
        tampered[100] ^= 0x01
        #expect(throws: CryptoError(.authenticationFailure, "")) { try key.decrypt(tampered, padding: .oaepSHA1) }
        #expect(throws: CryptoError(.authenticationFailure, "")) { try key.decrypt(ciphertext.dropLast(), padding: .oaepSHA1) }
        #expect(throws: CryptoError(.authenticationFailure, "")) { try key.decrypt(ciphertext + [0], padding: .oaepSHA1) }
        #expect(throws: CryptoError(.authenticationFailure, "")) { try key.decrypt(Data(), padding: .oaepSHA1) }
        #expect(try key.decrypt(ciphertext, padding: .oaepSHA1) == contentKey)
    }

    @Test(arguments: paddings)
    func keyWrappedByOpenSSLUnwrapsHere(padding: RSA.Padding) throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let contentKey = try SecureRandom.data(count: 16)
        try workspace.write(fixtures.bytes("rsa2048.pub.pem"), "pub.pem")
        try workspace.write(contentKey, "key.bin")
        try AsymTestSupport.openssl(["pkeyutl", "-encrypt", "-pubin", "-inkey", workspace.path("pub.pem"),
                                     "-in", workspace.path("key.bin"), "-out", workspace.path("wrapped.bin")] + pkeyoptArguments(padding))
        let wrapped = try workspace.read("wrapped.bin")
        #expect(wrapped.count == 256)
        #expect(try fixtureKey().decrypt(wrapped, padding: padding) == contentKey)
        let otherPadding: RSA.Padding = padding == .oaepSHA1 ? .oaepSHA256 : .oaepSHA1
        #expect(throws: CryptoError(.authenticationFailure, "")) { try fixtureKey().decrypt(wrapped, padding: otherPadding) }
    }

    @Test(arguments: paddings)
    func keyWrappedHereUnwrapsWithOpenSSL(padding: RSA.Padding) throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let contentKey = try SecureRandom.data(count: 16)
        let publicKey = try RSA.PublicKey(pemRepresentation: fixtures.text("rsa2048.pub.pem"))
        try workspace.write(publicKey.encrypt(contentKey, padding: padding), "wrapped.bin")
        try workspace.write(fixtures.bytes("rsa2048.pem"), "key.pem")
        try AsymTestSupport.openssl(["pkeyutl", "-decrypt", "-inkey", workspace.path("key.pem"),
                                     "-in", workspace.path("wrapped.bin"), "-out", workspace.path("key.bin")] + pkeyoptArguments(padding))
        #expect(try Data(workspace.read("key.bin")) == contentKey)
    }

    @Test func oneKeyServesConcurrentTasks() async throws {
        let key = try fixtureKey()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let contentKey = Data(repeating: UInt8(index), count: 16)
                    let padding: RSA.Padding = index.isMultiple(of: 2) ? .oaepSHA1 : .oaepSHA256
                    let wrapped = try key.publicKey.encrypt(contentKey, padding: padding)
                    let signature = try key.signature(for: contentKey)
                    return try key.decrypt(wrapped, padding: padding) == contentKey
                        && key.publicKey.isValidSignature(signature, for: contentKey)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    // MARK: import and export

    @Test func importsEveryOpenSSLEncodingOfTheSameKey() throws {
        let fixtures = try AsymFixtures.shared.get()
        let pkcs8 = try RSA.PrivateKey(pemRepresentation: fixtures.text("rsa2048.pem"))
        let pkcs1 = try RSA.PrivateKey(pemRepresentation: fixtures.text("rsa2048.pkcs1.pem"))
        let pkcs8DER = try RSA.PrivateKey(derRepresentation: fixtures.bytes("rsa2048.der"))
        let pkcs1DER = try RSA.PrivateKey(derRepresentation: fixtures.bytes("rsa2048.pkcs1.der"))
        let spki = try RSA.PublicKey(pemRepresentation: fixtures.text("rsa2048.pub.pem"))
        let spkiDER = try RSA.PublicKey(derRepresentation: fixtures.bytes("rsa2048.pub.der"))
        let pkcs1Public = try RSA.PublicKey(pemRepresentation: fixtures.text("rsa2048.pkcs1pub.pem"))
        for key in [pkcs8, pkcs1, pkcs8DER, pkcs1DER] {
            #expect(key.keySizeInBits == 2048)
            #expect(key.derRepresentation == Data(try fixtures.bytes("rsa2048.der")))
            #expect(key.publicKey.derRepresentation == Data(try fixtures.bytes("rsa2048.pub.der")))
        }
        for key in [spki, spkiDER, pkcs1Public] {
            #expect(key.derRepresentation == Data(try fixtures.bytes("rsa2048.pub.der")))
            #expect(key.pemRepresentation == (try fixtures.text("rsa2048.pub.pem")))
        }
        // Keys imported from PKCS#1 work: unwrap what the PKCS#8 import wrapped.
        let wrapped = try spki.encrypt(Data([1, 2, 3]), padding: .oaepSHA1)
        #expect(try pkcs1.decrypt(wrapped, padding: .oaepSHA1) == Data([1, 2, 3]))
    }

    @Test func modulusAndExponentMatchOpenSSLAndRoundTrip() throws {
        let fixtures = try AsymFixtures.shared.get()
        let publicKey = try RSA.PublicKey(pemRepresentation: fixtures.text("rsa2048.pub.pem"))
        let printed = try fixtures.text("rsa2048.modulus.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.hasPrefix("Modulus="))
        #expect(publicKey.modulus == Data(AsymTestSupport.bytes(hex: String(printed.dropFirst("Modulus=".count)))))
        #expect(publicKey.modulus.count == 256)
        #expect(publicKey.publicExponent == Data([0x01, 0x00, 0x01]))
        let rebuilt = try RSA.PublicKey(modulus: publicKey.modulus, publicExponent: publicKey.publicExponent)
        #expect(rebuilt.derRepresentation == publicKey.derRepresentation)
        // Leading zeros (as some JWK writers emit) are tolerated and dropped.
        let padded = try RSA.PublicKey(modulus: [0, 0] + publicKey.modulus, publicExponent: [0] + publicKey.publicExponent)
        #expect(padded.modulus == publicKey.modulus)
        #expect(padded.publicExponent == publicKey.publicExponent)
        // The rebuilt key encrypts for the private key.
        let wrapped = try rebuilt.encrypt(Data([9, 9]), padding: .oaepSHA256)
        #expect(try fixtureKey().decrypt(wrapped, padding: .oaepSHA256) == Data([9, 9]))
    }

    @Test func badModulusOrExponentIsRefused() throws {
        let modulus = try RSA.PublicKey(pemRepresentation: try AsymFixtures.shared.get().text("rsa2048.pub.pem")).modulus
        var even = modulus
        even[even.count - 1] &= 0xFE
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(modulus: even, publicExponent: [1, 0, 1]) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) { try RSA.PublicKey(modulus: Data(), publicExponent: [1, 0, 1]) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(modulus: modulus, publicExponent: [1]) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(modulus: modulus, publicExponent: [1, 0, 0]) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(modulus: modulus, publicExponent: Data()) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(modulus: modulus, publicExponent: Data(repeating: 0xFF, count: 33)) }
        #expect(throws: CryptoError(.invalidKeyEncoding, "")) {
            try RSA.PublicKey(modulus: Data(repeating: 0xFF, count: 2049), publicExponent: [1, 0, 1])
        }
    }

    @Test func damagedPrivateKeyIsRefused() throws {
        let fixtures = try AsymFixtures.shared.get()
        let pkcs1 = try fixtures.bytes("rsa2048.pkcs1.der")
        // Offsets 11... hold the modulus (30 82 xx xx 02 01 00 02 82 01 01 00 n...).
        for offset in [20, 100, 200] {
            var damaged = pkcs1
            damaged[offset] ^= 0x01
            #expect(throws: CryptoError(.invalidKeyEncoding, ""), "offset \(offset)") { try RSA.PrivateKey(derRepresentation: damaged) }
        }
    }

    // MARK: weak keys

    @Test func keysUnder2048BitsAreRefused() throws {
        let fixtures = try AsymFixtures.shared.get()
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PrivateKey(pemRepresentation: fixtures.text("rsa1024.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PrivateKey(pemRepresentation: fixtures.text("rsa1024.pkcs1.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(pemRepresentation: fixtures.text("rsa1024.pub.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(derRepresentation: fixtures.bytes("rsa1024.pub.der")) }
        // The same 1024-bit modulus as JWK n/e.
        let der = try fixtures.bytes("rsa1024.pub.der")
        // SPKI of a 1024-bit key: 02 81 81 then n (with its sign byte) at offset 28.
        try #require(der.count > 157 && der[25] == 0x02 && der[26] == 0x81 && der[27] == 0x81)
        let modulus = Array(der[28..<157])
        #expect(modulus.first == 0x00)
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PublicKey(modulus: modulus, publicExponent: [1, 0, 1]) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PrivateKey(keySize: 1024) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSA.PrivateKey(keySize: 2047) }
        #expect(throws: CryptoError(.invalidSize, "")) { try RSA.PrivateKey(keySize: 2049) }
        #expect(throws: CryptoError(.invalidSize, "")) { try RSA.PrivateKey(keySize: 32768) }
    }

    @Test func generatedKeyWorksWithOpenSSL() throws {
        let key = try RSA.PrivateKey()
        #expect(key.keySizeInBits == 2048)
        #expect(key.publicKey.publicExponent == Data([0x01, 0x00, 0x01]))
        let reimported = try RSA.PrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(reimported.derRepresentation == key.derRepresentation)
        let workspace = try AsymWorkspace()
        try workspace.write(Array(key.pemRepresentation.utf8), "key.pem")
        #expect(try AsymTestSupport.openssl(["pkey", "-in", workspace.path("key.pem"), "-check", "-noout"]) == 0)
        #expect(!"\(key)".contains(key.publicKey.modulus.prefix(4).map { String(format: "%02x", $0) }.joined()))
        #expect("\(key)" == "RSA.PrivateKey(2048 bits)")
    }

    // MARK: RS256

    @Test func signatureMadeHereVerifiesWithOpenSSL() throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let message = Data("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ2aWV3ZXIifQ".utf8)
        let signature = try fixtureKey().signature(for: message)
        #expect(signature.count == 256)
        // PKCS#1 v1.5 is deterministic.
        #expect(try fixtureKey().signature(for: message) == signature)
        try workspace.write(message, "message.txt")
        try workspace.write(signature, "signature.bin")
        try workspace.write(fixtures.bytes("rsa2048.pub.pem"), "pub.pem")
        let verify = ["dgst", "-sha256", "-verify", workspace.path("pub.pem"), "-signature", workspace.path("signature.bin"), workspace.path("message.txt")]
        #expect(try AsymTestSupport.openssl(verify, allowFailure: true) == 0)
        try workspace.write(message + [0x2E], "message.txt")
        #expect(try AsymTestSupport.openssl(verify, allowFailure: true) != 0)
    }

    @Test func signatureMadeByOpenSSLVerifiesHere() throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let message = Data("header.payload".utf8)
        try workspace.write(message, "message.txt")
        try workspace.write(fixtures.bytes("rsa2048.pem"), "key.pem")
        try AsymTestSupport.openssl(["dgst", "-sha256", "-sign", workspace.path("key.pem"), "-out", workspace.path("signature.bin"), workspace.path("message.txt")])
        let signature = try workspace.read("signature.bin")
        let publicKey = try RSA.PublicKey(pemRepresentation: fixtures.text("rsa2048.pub.pem"))
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(Data(signature) == (try fixtureKey().signature(for: message)))
        #expect(!publicKey.isValidSignature(signature, for: Data("header.payloaD".utf8)))
        var tampered = signature
        tampered[0] ^= 0x80
        #expect(!publicKey.isValidSignature(tampered, for: message))
        #expect(!publicKey.isValidSignature(signature.dropLast(), for: message))
        #expect(!publicKey.isValidSignature([0] + signature, for: message))
        #expect(!publicKey.isValidSignature(Data(), for: message))
    }
}
