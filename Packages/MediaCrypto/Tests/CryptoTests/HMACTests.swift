import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct HMACTests {
    private typealias T = SymmetricTestSupport

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    /// RFC 4231 §4 (test case 5 truncates the output and is not applicable).
    static let rfc4231: [Vector] = [
        Vector(name: "case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
               mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(name: "case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
               mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(name: "case 3", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
               mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(name: "case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
               mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(name: "case 6", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
               mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(name: "case 7", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                            + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
               mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: rfc4231)
    func rfc4231Vectors(_ vector: Vector) {
        let key = SecretKey(data: vector.key)
        let mac = HMACSHA256.authenticationCode(vector.data, key: key)
        #expect(T.hex(mac) == vector.mac)
        #expect(HMACSHA256.isValid(mac, for: vector.data, key: key))
        #expect(HMACSHA256.isValid(T.bytes(vector.mac), for: Data(vector.data), key: key))
    }

    @Test func emptyKeyAndMessage() {
        let mac = HMACSHA256.authenticationCode(Data(), key: SecretKey(data: Data()))
        #expect(T.hex(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// Key lengths around the 64-byte block (hashed above it) and assorted message lengths,
    /// against `openssl dgst -mac HMAC` (which cannot take an empty key; see `emptyKeyAndMessage`).
    @Test(arguments: [(1, 0), (1, 3), (32, 100), (63, 64), (64, 65), (65, 1), (200, 1000)])
    func matchesOpenSSLCLI(keyLength: Int, messageLength: Int) throws {
        let keyBytes = T.pattern(count: keyLength, seed: 9)
        let message = T.pattern(count: messageLength, seed: 4)
        let arguments = ["dgst", "-sha256", "-binary", "-mac", "HMAC", "-macopt", "hexkey:" + T.hex(keyBytes)]
        let cli = try T.openssl(arguments, input: message)
        #expect(Array(HMACSHA256.authenticationCode(message, key: SecretKey(data: keyBytes))) == cli)
    }

    @Test func verificationRejectsWrongKeyMessageAndMac() {
        let key = SecretKey(data: T.pattern(count: 32, seed: 1))
        let message = Array("arkavo:fps:component:v1:video".utf8)
        let mac = Array(HMACSHA256.authenticationCode(message, key: key))
        #expect(HMACSHA256.isValid(mac, for: message, key: key))
        #expect(!HMACSHA256.isValid(mac, for: message + [0], key: key))
        #expect(!HMACSHA256.isValid(mac, for: message, key: SecretKey(data: T.pattern(count: 32, seed: 2))))
        #expect(!HMACSHA256.isValid(mac.dropLast(), for: message, key: key))
        #expect(!HMACSHA256.isValid(mac + [0], for: message, key: key))
        #expect(!HMACSHA256.isValid([UInt8](), for: message, key: key))
        for index in mac.indices {
            var tampered = mac
            tampered[index] ^= 0x80
            #expect(!HMACSHA256.isValid(tampered, for: message, key: key), "flipped byte \(index) accepted")
        }
    }
}
