import Testing
@testable import MediaDRMCrypto

@Suite struct SecureRandomTests {
    @Test func returnsRequestedCountAndDiffers() throws {
        let a = try SecureRandom.bytes(count: 32)
        let b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
    }

    @Test func refusesNegativeCount() {
        #expect(throws: CryptoError(.invalidSize, "")) { try SecureRandom.bytes(count: -1) }
    }

    @Test func symmetricKeyHidesBytes() throws {
        let key = try SecretKey(size: .bits128)
        #expect(key.bitCount == 128)
        #expect("\(key)" == "SecretKey(128 bits)")
        #expect(key == SecretKey(data: key.withUnsafeBytes { Array($0) }))
        #expect(key != (try SecretKey(size: .bits128)))
    }
}
