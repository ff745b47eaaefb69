import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct AESCBCTests {
    private typealias T = SymmetricTestSupport

    private static let iv = "000102030405060708090a0b0c0d0e0f"
    private static let plaintext = """
        6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
        30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
        """

    /// NIST SP 800-38A appendix F.2.1/F.2.2 (AES-128), F.2.3/F.2.4 (AES-192), F.2.5/F.2.6 (AES-256).
    @Test(arguments: [
        ("F.2.1 CBC-AES128", "2b7e151628aed2a6abf7158809cf4f3c", """
            7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
            73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7
            """),
        ("F.2.3 CBC-AES192", "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", """
            4f021db243bc633d7178183a9fa071e8 b4d9ada9ad7dedf4e5e738763f69145a
            571b242012fb7ae07fa9baac3df102e0 08b0e27988598881d920a9e64f5615cd
            """),
        ("F.2.5 CBC-AES256", "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", """
            f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
            39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b
            """),
    ])
    func sp800_38aVectors(name: String, key: String, ciphertext: String) throws {
        let key = SecretKey(data: T.bytes(key))
        let encrypted = try AESCipher.CBC.encrypt(T.bytes(Self.plaintext), using: key, iv: T.bytes(Self.iv))
        #expect(T.hex(encrypted) == T.hex(T.bytes(ciphertext)), "\(name) encrypt")
        let decrypted = try AESCipher.CBC.decrypt(T.data(ciphertext), using: key, iv: T.data(Self.iv))
        #expect(decrypted == T.data(Self.plaintext), "\(name) decrypt")
        // CBC decryption of a suffix needs only the preceding ciphertext block as its IV.
        let tail = try AESCipher.CBC.decrypt(T.bytes(ciphertext)[16...], using: key, iv: T.bytes(ciphertext)[0..<16])
        #expect(tail == Data(T.bytes(Self.plaintext)[16...]))
    }

    @Test(arguments: [0, 16, 32, 4096, 1 << 20])
    func matchesOpenSSLCLI(length: Int) throws {
        let keyBytes = try SecureRandom.bytes(count: 16)
        let iv = try SecureRandom.bytes(count: 16)
        let plaintext = T.pattern(count: length, seed: 11)
        let ours = try AESCipher.CBC.encrypt(plaintext, using: SecretKey(data: keyBytes), iv: iv)
        let cli = try T.openssl(["enc", "-aes-128-cbc", "-nopad", "-K", T.hex(keyBytes), "-iv", T.hex(iv)], input: plaintext)
        #expect(Array(ours) == cli)
        #expect(try AESCipher.CBC.decrypt(ours, using: SecretKey(data: keyBytes), iv: iv) == Data(plaintext))
    }

    @Test func wrongSizesThrow() {
        let key = SecretKey(data: [UInt8](repeating: 1, count: 16))
        let iv = [UInt8](repeating: 2, count: 16)
        for length in [1, 15, 17, 31, 33] {
            #expect(throws: CryptoError(.invalidInput, "")) {
                try AESCipher.CBC.encrypt([UInt8](repeating: 0, count: length), using: key, iv: iv)
            }
            #expect(throws: CryptoError(.invalidInput, "")) {
                try AESCipher.CBC.decrypt([UInt8](repeating: 0, count: length), using: key, iv: iv)
            }
        }
        for length in [0, 12, 15, 17, 32] {
            #expect(throws: CryptoError(.invalidSize, "")) {
                try AESCipher.CBC.encrypt([UInt8](repeating: 0, count: 16), using: key, iv: [UInt8](repeating: 0, count: length))
            }
        }
        for length in [0, 8, 15, 17, 31, 33] {
            #expect(throws: CryptoError(.invalidSize, "")) {
                try AESCipher.CBC.decrypt([UInt8](repeating: 0, count: 16), using: SecretKey(data: [UInt8](repeating: 0, count: length)), iv: iv)
            }
        }
    }
}
