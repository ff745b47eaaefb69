import Foundation
import Testing
@testable import MediaDRMCrypto

@Suite struct AESCBCSTests {
    private typealias T = SymmetricTestSupport

    private static let keyBytes = T.bytes("0a0b0c0d0e0f10111213141516171819")
    private static let ivBytes = T.bytes("f0e1d2c3b4a5968778695a4b3c2d1e0f")
    private static var key: SecretKey { SecretKey(data: keyBytes) }

    private static func cipher(_ pattern: AESCipher.CBCS.Pattern) throws -> AESCipher.CBCS.Cipher {
        try AESCipher.CBCS.Cipher(key: key, constantIV: ivBytes, pattern: pattern)
    }

    /// (a) Full-sample pattern against `openssl enc -aes-128-cbc -nopad` on the whole-block
    /// prefix; the partial tail stays clear.
    @Test(arguments: [16, 100, 1000, 4096 + 15, 300_007])
    func fullSampleMatchesOpenSSLCLI(length: Int) throws {
        let keyBytes = try SecureRandom.bytes(count: 16)
        let iv = try SecureRandom.bytes(count: 16)
        let plaintext = T.pattern(count: length, seed: 21)
        var buffer = plaintext
        let cipher = try AESCipher.CBCS.Cipher(key: SecretKey(data: keyBytes), constantIV: iv, pattern: .fullSample)
        try cipher.encrypt(&buffer, range: 0..<buffer.count)

        let whole = length - length % 16
        let cli = try T.openssl(["enc", "-aes-128-cbc", "-nopad", "-K", T.hex(keyBytes), "-iv", T.hex(iv)],
                                input: Array(plaintext[0..<whole]))
        #expect(Array(buffer[0..<whole]) == cli)
        #expect(buffer[whole...] == plaintext[whole...])

        try cipher.decrypt(&buffer, range: 0..<buffer.count)
        #expect(buffer == plaintext)
    }

    /// (b) Pattern 1:9 computed independently: AES-CBC over the concatenation of the crypt
    /// blocks (0, 10, 20, ...) must land at exactly those blocks; skipped blocks and the tail
    /// are untouched.
    @Test(arguments: [16, 17, 159, 160, 161, 176, 16 * 10 * 7 + 16 * 3 + 5, 16 * 10 * 50])
    func videoPatternMatchesIndependentCBC(length: Int) throws {
        let plaintext = T.pattern(count: length, seed: 33)
        var buffer = plaintext
        try Self.cipher(.video).encrypt(&buffer, range: 0..<buffer.count)

        let wholeBlocks = length / 16
        let cryptBlocks = Array(stride(from: 0, to: wholeBlocks, by: 10))
        let gathered = cryptBlocks.flatMap { plaintext[($0 * 16)..<($0 * 16 + 16)] }
        let expected = Array(try AESCipher.CBC.encrypt(gathered, using: Self.key, iv: Self.ivBytes))
        var expectedBuffer = plaintext
        for (n, block) in cryptBlocks.enumerated() {
            expectedBuffer.replaceSubrange((block * 16)..<(block * 16 + 16), with: expected[(n * 16)..<(n * 16 + 16)])
        }
        #expect(buffer == expectedBuffer)
        for block in 0..<wholeBlocks where block % 10 != 0 {
            #expect(buffer[(block * 16)..<(block * 16 + 16)] == plaintext[(block * 16)..<(block * 16 + 16)])
        }
        #expect(buffer[(wholeBlocks * 16)...] == plaintext[(wholeBlocks * 16)...])
        if !cryptBlocks.isEmpty { #expect(buffer[0..<16] != plaintext[0..<16]) }

        try Self.cipher(.video).decrypt(&buffer, range: 0..<buffer.count)
        #expect(buffer == plaintext)
    }

    /// A crypt run longer than one block: at the end of a range, whole blocks fewer than
    /// `cryptByteBlock` stay clear (as Shaka Packager and FFmpeg do).
    @Test func partialCryptRunAtEndStaysClear() throws {
        let pattern = AESCipher.CBCS.Pattern(cryptByteBlock: 2, skipByteBlock: 3)
        // Blocks: c c s s s | c c s s s | c  + 7 tail bytes -> the last single block is clear.
        let length = 11 * 16 + 7
        let plaintext = T.pattern(count: length, seed: 44)
        var buffer = plaintext
        try Self.cipher(pattern).encrypt(&buffer, range: 0..<length)
        let cryptBlocks = [0, 1, 5, 6]
        let gathered = cryptBlocks.flatMap { plaintext[($0 * 16)..<($0 * 16 + 16)] }
        let expected = Array(try AESCipher.CBC.encrypt(gathered, using: Self.key, iv: Self.ivBytes))
        var expectedBuffer = plaintext
        for (n, block) in cryptBlocks.enumerated() {
            expectedBuffer.replaceSubrange((block * 16)..<(block * 16 + 16), with: expected[(n * 16)..<(n * 16 + 16)])
        }
        #expect(buffer == expectedBuffer)
        #expect(buffer[(10 * 16)...] == plaintext[(10 * 16)...])
    }

    /// (c) Round trips for every length 0...200 and large buffers, both patterns.
    @Test(arguments: [AESCipher.CBCS.Pattern.video, .fullSample, AESCipher.CBCS.Pattern(cryptByteBlock: 3, skipByteBlock: 7)])
    func roundTripManyLengths(pattern: AESCipher.CBCS.Pattern) throws {
        let cipher = try Self.cipher(pattern)
        for length in Array(0...200) + [4095, 65_536, 1_000_003] {
            let plaintext = T.pattern(count: length, seed: UInt8(truncatingIfNeeded: length))
            var buffer = plaintext
            try cipher.encrypt(&buffer, range: 0..<length)
            if length >= 16 * pattern.cryptByteBlock {
                #expect(buffer[0..<16] != plaintext[0..<16], "length \(length) not encrypted")
            } else {
                #expect(buffer == plaintext, "length \(length) should stay clear")
            }
            #expect(buffer[(length - length % 16)...] == plaintext[(length - length % 16)...])
            try cipher.decrypt(&buffer, range: 0..<length)
            #expect(buffer == plaintext, "length \(length) round trip")
        }
    }

    /// Ranges at offsets leave the bytes outside them alone; two protected ranges each restart
    /// at the constant IV, so equal content gives equal ciphertext and matches a fresh buffer.
    @Test(arguments: [AESCipher.CBCS.Pattern.video, .fullSample])
    func rangesRestartAtConstantIV(pattern: AESCipher.CBCS.Pattern) throws {
        let cipher = try Self.cipher(pattern)
        let content = T.pattern(count: 16 * 23 + 9, seed: 55)
        var alone = content
        try cipher.encrypt(&alone, range: 0..<alone.count)

        let header = T.pattern(count: 37, seed: 66)
        let gap = T.pattern(count: 5, seed: 77)
        let trailer = T.pattern(count: 11, seed: 88)
        let sample = header + content + gap + content + trailer
        let first = header.count..<(header.count + content.count)
        let second = (first.upperBound + gap.count)..<(first.upperBound + gap.count + content.count)
        var buffer = sample
        try cipher.encrypt(&buffer, range: first)
        try cipher.encrypt(&buffer, range: second)

        #expect(Array(buffer[first]) == alone)
        #expect(Array(buffer[second]) == alone)
        #expect(Array(buffer[0..<first.lowerBound]) == header)
        #expect(Array(buffer[first.upperBound..<second.lowerBound]) == gap)
        #expect(Array(buffer[second.upperBound...]) == trailer)

        try cipher.decrypt(&buffer, range: second)
        try cipher.decrypt(&buffer, range: first)
        #expect(buffer == sample)
    }

    /// Interleaving directions on one cipher never leaks chaining state between calls.
    @Test func encryptAndDecryptInterleave() throws {
        let cipher = try Self.cipher(.video)
        let a = T.pattern(count: 16 * 40, seed: 1)
        let b = T.pattern(count: 16 * 40 + 3, seed: 2)
        var ea = a, eb = b
        try cipher.encrypt(&ea, range: 0..<ea.count)
        var da = ea
        try cipher.decrypt(&da, range: 0..<da.count)
        try cipher.encrypt(&eb, range: 0..<eb.count)
        var again = a
        try cipher.encrypt(&again, range: 0..<again.count)
        #expect(da == a)
        #expect(again == ea)
        var db = eb
        try cipher.decrypt(&db, range: 0..<db.count)
        #expect(db == b)
    }

    @Test(arguments: [AESCipher.CBCS.Pattern.video, .fullSample])
    func rawBufferMatchesArrayRange(pattern: AESCipher.CBCS.Pattern) throws {
        let cipher = try Self.cipher(pattern)
        let plaintext = T.pattern(count: 16 * 31 + 12, seed: 99)
        var viaArray = [0xAA] + plaintext + [0xBB]
        try cipher.encrypt(&viaArray, range: 1..<(1 + plaintext.count))

        var viaPointer = plaintext
        try viaPointer.withUnsafeMutableBytes { try cipher.encrypt($0) }
        #expect(Array(viaArray[1..<(1 + plaintext.count)]) == viaPointer)
        #expect(viaArray.first == 0xAA && viaArray.last == 0xBB)

        try viaPointer.withUnsafeMutableBytes { try cipher.decrypt($0) }
        #expect(viaPointer == plaintext)
        var empty: [UInt8] = []
        try empty.withUnsafeMutableBytes { try cipher.encrypt($0) }
        #expect(empty.isEmpty)
    }

    @Test func zeroZeroPatternMeansFullSample() throws {
        let plaintext = T.pattern(count: 16 * 9 + 4, seed: 7)
        var full = plaintext, zero = plaintext
        try Self.cipher(.fullSample).encrypt(&full, range: 0..<full.count)
        try Self.cipher(AESCipher.CBCS.Pattern(cryptByteBlock: 0, skipByteBlock: 0)).encrypt(&zero, range: 0..<zero.count)
        #expect(full == zero)
    }

    @Test func invalidParametersThrow() throws {
        for length in [0, 15, 17, 24, 32] {
            #expect(throws: CryptoError(.invalidSize, ""), "key \(length)") {
                try AESCipher.CBCS.Cipher(key: SecretKey(data: [UInt8](repeating: 1, count: length)),
                                          constantIV: Self.ivBytes, pattern: .video)
            }
        }
        for length in [0, 8, 15, 17] {
            #expect(throws: CryptoError(.invalidSize, ""), "iv \(length)") {
                try AESCipher.CBCS.Cipher(key: Self.key, constantIV: [UInt8](repeating: 0, count: length), pattern: .video)
            }
        }
        for (crypt, skip) in [(0, 9), (-1, 0), (1, -1), (16, 0), (1, 16)] {
            #expect(throws: CryptoError(.invalidInput, ""), "pattern \(crypt):\(skip)") {
                try AESCipher.CBCS.Cipher(key: Self.key, constantIV: Self.ivBytes,
                                          pattern: AESCipher.CBCS.Pattern(cryptByteBlock: crypt, skipByteBlock: skip))
            }
        }
        let cipher = try Self.cipher(.video)
        var buffer = [UInt8](repeating: 0, count: 64)
        for range in [-1..<10, 0..<65, 60..<80] {
            #expect(throws: CryptoError(.invalidInput, ""), "range \(range)") {
                try cipher.encrypt(&buffer, range: range)
            }
            #expect(throws: CryptoError(.invalidInput, ""), "range \(range)") {
                try cipher.decrypt(&buffer, range: range)
            }
        }
        #expect(buffer == [UInt8](repeating: 0, count: 64))
    }

    @Test func namedPatterns() {
        #expect(AESCipher.CBCS.Pattern.video == AESCipher.CBCS.Pattern(cryptByteBlock: 1, skipByteBlock: 9))
        #expect(AESCipher.CBCS.Pattern.fullSample == AESCipher.CBCS.Pattern(cryptByteBlock: 1, skipByteBlock: 0))
    }
}
