import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct AESGCMTests {
    private typealias T = SymmetricTestSupport

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let iv: String
        let plaintext: String
        let aad: String
        let ciphertext: String
        let tag: String
        var testDescription: String { name }
    }

    private static let k3 = "feffe9928665731c6d6a8f9467308308"
    private static let iv3 = "cafebabefacedbaddecaf888"
    private static let p3 = """
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
        """
    private static let p4 = """
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
        """
    private static let a4 = "feedfacedeadbeeffeedfacedeadbeefabaddad2"

    /// McGrew and Viega, "The Galois/Counter Mode of Operation", test cases as used by
    /// NIST SP 800-38D validation.
    static let vectors: [Vector] = [
        Vector(name: "TC1 AES-128 empty", key: String(repeating: "0", count: 32), iv: String(repeating: "0", count: 24),
               plaintext: "", aad: "", ciphertext: "", tag: "58e2fccefa7e3061367f1d57a4e7455a"),
        Vector(name: "TC2 AES-128", key: String(repeating: "0", count: 32), iv: String(repeating: "0", count: 24),
               plaintext: String(repeating: "0", count: 32), aad: "",
               ciphertext: "0388dace60b6a392f328c2b971b2fe78", tag: "ab6e47d42cec13bdf53a67b21257bddf"),
        Vector(name: "TC3 AES-128 no AAD", key: k3, iv: iv3, plaintext: p3, aad: "",
               ciphertext: """
                   42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e
                   21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985
                   """,
               tag: "4d5c2af327cd64a62cf35abd2ba6fab4"),
        Vector(name: "TC4 AES-128 with AAD", key: k3, iv: iv3, plaintext: p4, aad: a4,
               ciphertext: """
                   42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e
                   21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091
                   """,
               tag: "5bc94fbc3221a5db94fae95ae7121a47"),
        Vector(name: "TC8 AES-192", key: String(repeating: "0", count: 48), iv: String(repeating: "0", count: 24),
               plaintext: String(repeating: "0", count: 32), aad: "",
               ciphertext: "98e7247c07f0fe411c267e4384b0f600", tag: "2ff58d80033927ab8ef4d4587514f0fb"),
        Vector(name: "TC13 AES-256 empty", key: String(repeating: "0", count: 64), iv: String(repeating: "0", count: 24),
               plaintext: "", aad: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "TC14 AES-256", key: String(repeating: "0", count: 64), iv: String(repeating: "0", count: 24),
               plaintext: String(repeating: "0", count: 32), aad: "",
               ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "TC15 AES-256 no AAD", key: k3 + k3, iv: iv3, plaintext: p3, aad: "",
               ciphertext: """
                   522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
                   8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad
                   """,
               tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "TC16 AES-256 with AAD", key: k3 + k3, iv: iv3, plaintext: p4, aad: a4,
               ciphertext: """
                   522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
                   8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
                   """,
               tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func knownAnswers(_ vector: Vector) throws {
        let key = SecretKey(data: T.bytes(vector.key))
        let nonce = try AESCipher.GCM.Nonce(data: T.bytes(vector.iv))
        let box = try AESCipher.GCM.seal(T.bytes(vector.plaintext), using: key, nonce: nonce,
                                         authenticating: T.bytes(vector.aad))
        #expect(T.hex(box.ciphertext) == T.hex(T.bytes(vector.ciphertext)))
        #expect(T.hex(box.tag) == vector.tag)
        #expect(box.nonce == nonce)
        #expect(box.combined == Data(T.bytes(vector.iv) + T.bytes(vector.ciphertext) + T.bytes(vector.tag)))

        let stored = try AESCipher.GCM.SealedBox(combined: T.bytes(vector.iv) + T.bytes(vector.ciphertext) + T.bytes(vector.tag))
        let opened = try AESCipher.GCM.open(stored, using: key, authenticating: Data(T.bytes(vector.aad)))
        #expect(opened == Data(T.bytes(vector.plaintext)))
    }

    @Test(arguments: [16, 24, 32], [0, 1, 15, 16, 17, 1000, 65_537])
    func roundTrip(keyBytes: Int, length: Int) throws {
        let key = try SecretKey(size: SecretKeySize(bitCount: keyBytes * 8))
        let plaintext = T.pattern(count: length, seed: UInt8(keyBytes))
        let aad = Array("segment-\(length)".utf8)
        let box = try AESCipher.GCM.seal(plaintext, using: key, authenticating: aad)
        #expect(box.ciphertext.count == length)
        #expect(box.tag.count == 16)
        #expect(box.combined.count == 28 + length)
        if length >= 16 { #expect(Array(box.ciphertext) != plaintext) }
        let reparsed = try AESCipher.GCM.SealedBox(combined: box.combined)
        #expect(reparsed == box)
        #expect(try AESCipher.GCM.open(reparsed, using: key, authenticating: aad) == Data(plaintext))
    }

    @Test func randomNoncesDiffer() throws {
        let key = try SecretKey(size: .bits256)
        let a = try AESCipher.GCM.seal(Data("same".utf8), using: key)
        let b = try AESCipher.GCM.seal(Data("same".utf8), using: key)
        #expect(a.nonce.data.count == 12)
        #expect(a.nonce != b.nonce)
        #expect(a.ciphertext != b.ciphertext)
    }

    @Test func tamperingFailsAuthentication() throws {
        let key = try SecretKey(size: .bits256)
        let plaintext = T.pattern(count: 40)
        let aad = Array("policy".utf8)
        let box = try AESCipher.GCM.seal(plaintext, using: key, authenticating: aad)
        let combined = Array(box.combined)
        // Every bit position class of every byte: nonce, ciphertext and tag.
        for index in combined.indices {
            var tampered = combined
            tampered[index] ^= 0x01
            let bad = try AESCipher.GCM.SealedBox(combined: tampered)
            #expect(throws: CryptoError(.authenticationFailure, "")) {
                try AESCipher.GCM.open(bad, using: key, authenticating: aad)
            }
        }
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try AESCipher.GCM.open(box, using: key, authenticating: Array("polic".utf8) + [UInt8(ascii: "Y")])
        }
        #expect(throws: CryptoError(.authenticationFailure, "")) { try AESCipher.GCM.open(box, using: key) }
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try AESCipher.GCM.open(box, using: key, authenticating: aad + [0])
        }
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try AESCipher.GCM.open(box, using: try SecretKey(size: .bits256), authenticating: aad)
        }
        let truncated = try AESCipher.GCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext.dropLast(), tag: box.tag)
        #expect(throws: CryptoError(.authenticationFailure, "")) {
            try AESCipher.GCM.open(truncated, using: key, authenticating: aad)
        }
        #expect(try AESCipher.GCM.open(box, using: key, authenticating: aad) == Data(plaintext))
    }

    @Test func everyShortCombinedLengthThrows() {
        let bytes = T.pattern(count: 28)
        for length in 0..<28 {
            #expect(throws: CryptoError(.invalidSize, ""), "length \(length)") {
                try AESCipher.GCM.SealedBox(combined: bytes[0..<length])
            }
        }
        #expect((try? AESCipher.GCM.SealedBox(combined: bytes))?.ciphertext.isEmpty == true)
    }

    @Test func wrongSizesThrowInvalidSize() throws {
        for length in [0, 8, 11, 13, 16] {
            #expect(throws: CryptoError(.invalidSize, "")) { try AESCipher.GCM.Nonce(data: [UInt8](repeating: 0, count: length)) }
        }
        let nonce = try AESCipher.GCM.Nonce()
        for length in [0, 12, 15, 17, 32] {
            #expect(throws: CryptoError(.invalidSize, "")) {
                try AESCipher.GCM.SealedBox(nonce: nonce, ciphertext: Data(), tag: [UInt8](repeating: 0, count: length))
            }
        }
        for length in [0, 1, 15, 17, 20, 31, 33, 64] {
            let key = SecretKey(data: [UInt8](repeating: 7, count: length))
            #expect(throws: CryptoError(.invalidSize, ""), "key \(length)") {
                try AESCipher.GCM.seal(Data("x".utf8), using: key)
            }
            let box = try AESCipher.GCM.SealedBox(combined: [UInt8](repeating: 0, count: 30))
            #expect(throws: CryptoError(.invalidSize, ""), "key \(length)") { try AESCipher.GCM.open(box, using: key) }
        }
    }
}
