import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct P256SigningTests {
    @Test func signatureMadeHereVerifiesWithOpenSSL() throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let key = try ECP256.Signing.PrivateKey(pemRepresentation: fixtures.text("p256.pem"))
        let message = Data("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ2aWV3ZXIifQ".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.rawRepresentation.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        try workspace.write(message, "message.txt")
        try workspace.write(signature.derRepresentation, "signature.der")
        try workspace.write(fixtures.bytes("p256.pub.pem"), "pub.pem")
        let verify = ["dgst", "-sha256", "-verify", workspace.path("pub.pem"), "-signature", workspace.path("signature.der"), workspace.path("message.txt")]
        #expect(try AsymTestSupport.openssl(verify, allowFailure: true) == 0)
        try workspace.write(message + [0x2E], "message.txt")
        #expect(try AsymTestSupport.openssl(verify, allowFailure: true) != 0)
    }

    @Test func signatureMadeByOpenSSLVerifiesHere() throws {
        let fixtures = try AsymFixtures.shared.get()
        let workspace = try AsymWorkspace()
        let message = Data("header.payload".utf8)
        try workspace.write(message, "message.txt")
        try workspace.write(fixtures.bytes("p256.pem"), "key.pem")
        try AsymTestSupport.openssl(["dgst", "-sha256", "-sign", workspace.path("key.pem"), "-out", workspace.path("signature.der"), workspace.path("message.txt")])
        let der = try workspace.read("signature.der")
        let signature = try ECP256.Signing.ECDSASignature(derRepresentation: der)
        #expect(signature.derRepresentation == Data(der))
        let publicKey = try ECP256.Signing.PublicKey(pemRepresentation: fixtures.text("p256.pub.pem"))
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: Data("header.payloaD".utf8)))
        var raw = Array(signature.rawRepresentation)
        raw[40] ^= 0x01
        #expect(!publicKey.isValidSignature(try ECP256.Signing.ECDSASignature(rawRepresentation: raw), for: message))
        let otherKey = try ECP256.Signing.PrivateKey().publicKey
        #expect(!otherKey.isValidSignature(signature, for: message))
    }

    /// RFC 6979 A.2.5: P-256 key and the SHA-256 signatures of "sample" and "test".
    @Test func rfc6979KnownAnswers() throws {
        let key = try ECP256.Signing.PrivateKey(rawRepresentation: AsymTestSupport.bytes(hex:
            "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
        #expect(key.publicKey.rawRepresentation == Data(AsymTestSupport.bytes(hex:
            "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6" +
            "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")))
        let sample = try ECP256.Signing.ECDSASignature(rawRepresentation: AsymTestSupport.bytes(hex:
            "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716" +
            "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"))
        let test = try ECP256.Signing.ECDSASignature(rawRepresentation: AsymTestSupport.bytes(hex:
            "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367" +
            "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"))
        #expect(key.publicKey.isValidSignature(sample, for: Data("sample".utf8)))
        #expect(key.publicKey.isValidSignature(test, for: Data("test".utf8)))
        #expect(!key.publicKey.isValidSignature(sample, for: Data("test".utf8)))
        // r of "test" has its high bit set (DER adds a sign byte); s starts 0x01 (no sign byte).
        #expect(try ECP256.Signing.ECDSASignature(derRepresentation: test.derRepresentation) == test)
        #expect(test.derRepresentation.count == 2 + (2 + 33) + (2 + 32))
    }

    @Test func rawAndDERConversions() throws {
        let r = [UInt8](repeating: 0x80, count: 32)   // high bit set: DER needs a sign byte
        let s = [UInt8](repeating: 0, count: 31) + [0x05]
        let signature = try ECP256.Signing.ECDSASignature(rawRepresentation: r + s)
        let der = Array(signature.derRepresentation)
        #expect(der == [0x30, 0x26, 0x02, 0x21, 0x00] + r + [0x02, 0x01, 0x05])
        #expect(try ECP256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation == Data(r + s))
        #expect(throws: CryptoError(.invalidSize, "")) { try ECP256.Signing.ECDSASignature(rawRepresentation: r) }
        #expect(throws: CryptoError(.invalidSize, "")) { try ECP256.Signing.ECDSASignature(rawRepresentation: r + s + [0]) }
    }

    @Test func everyPrefixOfADERSignatureIsRefused() throws {
        let key = try ECP256.Signing.PrivateKey()
        let der = Array(try key.signature(for: Data("m".utf8)).derRepresentation)
        for length in 0..<der.count {
            #expect(throws: CryptoError(.invalidInput, ""), "prefix \(length)") {
                try ECP256.Signing.ECDSASignature(derRepresentation: der.prefix(length))
            }
        }
        #expect(throws: CryptoError(.invalidInput, "")) { try ECP256.Signing.ECDSASignature(derRepresentation: der + [0]) }
    }

    @Test(arguments: [
        [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01],                 // r with a needless zero byte
        [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],                 // long-form length where short is due
        [0x30, 0x06, 0x02, 0x01, 0xFF, 0x02, 0x01, 0x01],                       // negative r
        [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01],                       // r = 0
        [0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x01],                       // s not an INTEGER
        [0x30, 0x03, 0x02, 0x01, 0x01],                                         // s missing
        [0x30, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],     // extra element
        [0x30, 0x27, 0x02, 0x22, 0x01] + [UInt8](repeating: 0, count: 33) + [0x02, 0x01, 0x01],  // r of 33 bytes
        [],
    ] as [[UInt8]])
    func malformedDERSignaturesAreRefused(der: [UInt8]) {
        #expect(throws: CryptoError(.invalidInput, "")) { try ECP256.Signing.ECDSASignature(derRepresentation: der) }
    }

    @Test func keyRepresentationsRoundTrip() throws {
        let fixtures = try AsymFixtures.shared.get()
        let key = try ECP256.Signing.PrivateKey(pemRepresentation: fixtures.text("p256.sec1.pem"))
        #expect(key.derRepresentation == Data(try fixtures.bytes("p256.der")))
        let fromRaw = try ECP256.Signing.PrivateKey(rawRepresentation: key.rawRepresentation)
        #expect(fromRaw.publicKey == key.publicKey)
        let publicKey = key.publicKey
        for variant in [
            try ECP256.Signing.PublicKey(x963Representation: publicKey.x963Representation),
            try ECP256.Signing.PublicKey(compressedRepresentation: publicKey.compressedRepresentation),
            try ECP256.Signing.PublicKey(rawRepresentation: publicKey.rawRepresentation),
            try ECP256.Signing.PublicKey(pemRepresentation: publicKey.pemRepresentation),
            try ECP256.Signing.PublicKey(derRepresentation: fixtures.bytes("p256.pub.der")),
        ] {
            #expect(variant == publicKey)
        }
        // A signature by the key rebuilt from its scalar verifies under the original public key.
        let signature = try fromRaw.signature(for: Data("x".utf8))
        #expect(publicKey.isValidSignature(signature, for: Data("x".utf8)))
        #expect("\(key)" == "ECP256.Signing.PrivateKey")
    }
}
