import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct HKDFTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let ikm: [UInt8]
        let salt: [UInt8]
        let info: [UInt8]
        let okm: String
        var testDescription: String { name }
    }

    /// RFC 5869 appendix A, test cases 1-3 (SHA-256).
    static let rfc5869: [Vector] = [
        Vector(name: "A.1", ikm: [UInt8](repeating: 0x0B, count: 22),
               salt: Array(0x00...0x0C), info: Array(0xF0...0xF9),
               okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        Vector(name: "A.2", ikm: Array(0x00...0x4F), salt: Array(0x60...0xAF), info: Array(0xB0...0xFF),
               okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                  + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                  + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        Vector(name: "A.3", ikm: [UInt8](repeating: 0x0B, count: 22), salt: [], info: [],
               okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: rfc5869)
    func rfc5869KnownAnswers(vector: Vector) throws {
        let expected = AsymTestSupport.bytes(hex: vector.okm)
        let okm = try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: vector.ikm), salt: vector.salt, info: vector.info,
                                           outputByteCount: expected.count)
        #expect(okm == SecretKey(data: expected))
        // A shorter output is a prefix of the longer one.
        let prefix = try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: vector.ikm), salt: vector.salt, info: vector.info,
                                              outputByteCount: 16)
        #expect(prefix == SecretKey(data: expected.prefix(16)))
    }

    @Test func emptySaltEqualsHashLengthOfZeros() throws {
        let ikm = SecretKey(data: [UInt8](repeating: 0x0B, count: 22))
        let empty = try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(), info: Data("x".utf8), outputByteCount: 32)
        let zeros = try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(count: 32), info: Data("x".utf8), outputByteCount: 32)
        #expect(empty == zeros)
    }

    @Test func outputSizeAndInputAreChecked() throws {
        let ikm = SecretKey(data: [1, 2, 3])
        #expect(throws: CryptoError(.invalidSize, "")) { try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(), info: Data(), outputByteCount: 0) }
        #expect(throws: CryptoError(.invalidSize, "")) { try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(), info: Data(), outputByteCount: -1) }
        #expect(throws: CryptoError(.invalidSize, "")) { try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(), info: Data(), outputByteCount: 8161) }
        #expect(try HKDFSHA256.deriveKey(inputKeyMaterial: ikm, salt: Data(), info: Data(), outputByteCount: 8160).byteCount == 8160)
        #expect(throws: CryptoError(.invalidInput, "")) {
            try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: []), salt: Data(), info: Data(), outputByteCount: 32)
        }
    }

    @Test func agreesWithOpenSSLKDFCommand() throws {
        let workspace = try AsymWorkspace()
        let ikm = try SecureRandom.bytes(count: 32)
        let salt = try SecureRandom.bytes(count: 32)
        let info = Array("arkavo:test".utf8)
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        try AsymTestSupport.openssl(["kdf", "-keylen", "48", "-binary", "-out", workspace.path("okm.bin"),
                                     "-kdfopt", "digest:SHA256", "-kdfopt", "hexkey:\(hex(ikm))",
                                     "-kdfopt", "hexsalt:\(hex(salt))", "-kdfopt", "hexinfo:\(hex(info))", "HKDF"])
        let expected = try workspace.read("okm.bin")
        #expect(expected.count == 48)
        let okm = try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: ikm), salt: salt, info: info, outputByteCount: 48)
        #expect(okm == SecretKey(data: expected))
    }
}
