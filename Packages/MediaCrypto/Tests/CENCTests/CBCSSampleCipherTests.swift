import MediaDRMCrypto
import Foundation
import MediaDRMMP4
import Testing
@testable import MediaDRMCENC

@Suite("cbcs sample encryption")
struct CBCSSampleCipherTests {
    static let key = SecretKey(data: Data((0 ..< 16).map { UInt8($0 * 7 + 1) }))
    static let iv = Data((0 ..< 16).map { UInt8(0xA0 + $0) })

    static func pseudoRandom(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed
        return (0 ..< count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// Checks one protected range of `encrypted` against the plaintext: only the crypt blocks
    /// at offsets 0, 160, 320, ... changed, and they equal AES-128-CBC of those blocks chained
    /// from the constant IV, computed by the separate AESCipher.CBC path.
    static func checkRange(_ plain: [UInt8], _ encrypted: [UInt8], _ range: Range<Int>, skip: Int) throws {
        var cryptBlocks: [Range<Int>] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 16 {
            cryptBlocks.append(offset ..< offset + 16)
            offset += 16 * (1 + skip)
        }
        var changedOutsideCrypt = false
        var inCrypt = [Bool](repeating: false, count: plain.count)
        for block in cryptBlocks { for index in block { inCrypt[index] = true } }
        for index in range where !inCrypt[index] && plain[index] != encrypted[index] { changedOutsideCrypt = true }
        #expect(!changedOutsideCrypt)
        guard !cryptBlocks.isEmpty else { return }
        let plainCrypt = cryptBlocks.flatMap { plain[$0] }
        let expected = try AESCipher.CBC.encrypt(plainCrypt, using: key, iv: iv)
        #expect(Array(expected) == cryptBlocks.flatMap { encrypted[$0] })
    }

    @Test func videoSubsamplesRestartTheChainAndSkipNineBlocks() throws {
        let cipher = try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: .video)
        let plain = Self.pseudoRandom(5000)
        let map = [CENCSubsample(bytesOfClearData: 37, bytesOfProtectedData: 1700),
                   CENCSubsample(bytesOfClearData: 5, bytesOfProtectedData: 15),
                   CENCSubsample(bytesOfClearData: 100, bytesOfProtectedData: 3000),
                   CENCSubsample(bytesOfClearData: 143, bytesOfProtectedData: 0)]
        try CENCSubsample.validate(map, sampleSize: plain.count)
        var sample = plain
        try cipher.encrypt(&sample, subsamples: map)
        #expect(sample != plain)
        let ranges = [37 ..< 1737, 1742 ..< 1757, 1857 ..< 4857]
        for range in ranges { try Self.checkRange(plain, sample, range, skip: 9) }
        // Clear bytes untouched.
        for range in [0 ..< 37, 1737 ..< 1742, 1757 ..< 1857, 4857 ..< 5000] { #expect(sample[range] == plain[range]) }
        try cipher.decrypt(&sample, subsamples: map)
        #expect(sample == plain)
    }

    /// The client decrypts each sample where it lies in the `mdat` payload: the same bytes as
    /// decrypting it alone, the neighbours untouched, and a sample outside the buffer refused.
    @Test func aSampleInsideALargerBufferDecryptsInPlace() throws {
        let cipher = try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: .video)
        let plain = Self.pseudoRandom(3000, seed: 7)
        let map = [CENCSubsample(bytesOfClearData: 21, bytesOfProtectedData: 2900),
                   CENCSubsample(bytesOfClearData: 79, bytesOfProtectedData: 0)]
        var alone = plain
        try cipher.encrypt(&alone, subsamples: map)
        let before = Self.pseudoRandom(333, seed: 8), after = Self.pseudoRandom(101, seed: 9)
        var buffer = before + alone + after
        try cipher.decrypt(&buffer, sample: before.count ..< before.count + plain.count, subsamples: map)
        #expect(buffer == before + plain + after)
        var audio = before + alone + after
        let whole = before.count ..< before.count + plain.count
        var encryptedAlone = plain
        try cipher.encrypt(&encryptedAlone, subsamples: [])
        audio.replaceSubrange(whole, with: encryptedAlone)
        try cipher.decrypt(&audio, sample: whole, subsamples: [])
        #expect(audio == before + plain + after)
        #expect(throws: CENCError.self) { try cipher.decrypt(&buffer, sample: buffer.count - 10 ..< buffer.count + 6, subsamples: []) }
        #expect(throws: CENCError.self) { try cipher.decrypt(&buffer, sample: 0 ..< 100, subsamples: map) }
    }

    @Test func audioIsWholeBlockFullSample() throws {
        for pattern in [AESCipher.CBCS.Pattern.fullSample, AESCipher.CBCS.Pattern(cryptByteBlock: 0, skipByteBlock: 0)] {
            let cipher = try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: pattern)
            for size in [0, 5, 16, 17, 371, 512] {
                let plain = Self.pseudoRandom(size, seed: UInt32(size))
                var sample = plain
                try cipher.encrypt(&sample, subsamples: [])
                let whole = size - size % 16
                if whole > 0 {
                    #expect(Array(try AESCipher.CBC.encrypt(plain[0 ..< whole], using: Self.key, iv: Self.iv)) == Array(sample[0 ..< whole]))
                }
                #expect(sample[whole...] == plain[whole...])
                try cipher.decrypt(&sample, entry: SampleEncryptionBox.Sample())
                #expect(sample == plain)
            }
        }
    }

    @Test func tencDrivesDecryption() throws {
        let tenc = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: [UInt8](repeating: 0, count: 16),
                                      defaultConstantIV: Array(Self.iv), defaultCryptByteBlock: 1, defaultSkipByteBlock: 9)
        let cipher = try CBCSSampleCipher(key: Self.key, trackEncryption: tenc)
        #expect(cipher.pattern == .video)
        let plain = Self.pseudoRandom(2000)
        let map = [CENCSubsample(bytesOfClearData: 10, bytesOfProtectedData: 1990)]
        var sample = plain
        try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: .video).encrypt(&sample, subsamples: map)
        try cipher.decrypt(&sample, entry: SampleEncryptionBox.Sample(subsamples: map))
        #expect(sample == plain)

        let audioTenc = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: [UInt8](repeating: 0, count: 16),
                                           defaultConstantIV: Array(Self.iv))
        #expect(try CBCSSampleCipher(key: Self.key, trackEncryption: audioTenc).pattern == AESCipher.CBCS.Pattern(cryptByteBlock: 0, skipByteBlock: 0))
    }

    @Test func refusals() throws {
        let cipher = try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: .video)
        var sample = Self.pseudoRandom(100)
        let original = sample
        expectCENCError(.invalidSubsamples) { try cipher.encrypt(&sample, subsamples: [CENCSubsample(bytesOfClearData: 10, bytesOfProtectedData: 89)]) }
        expectCENCError(.invalidSubsamples) { try cipher.decrypt(&sample, subsamples: [CENCSubsample(bytesOfClearData: 10, bytesOfProtectedData: 91)]) }
        #expect(sample == original)
        expectCENCError(.unsupported) { try cipher.decrypt(&sample, entry: SampleEncryptionBox.Sample(initializationVector: [UInt8](repeating: 1, count: 16))) }
        expectCENCError(.crypto) { _ = try CBCSSampleCipher(key: SecretKey(data: Data(count: 32)), constantIV: Self.iv, pattern: .video) }
        expectCENCError(.crypto) { _ = try CBCSSampleCipher(key: Self.key, constantIV: Data(count: 8), pattern: .video) }
        let perSampleIV = TrackEncryptionBox(defaultPerSampleIVSize: 16, defaultKID: [UInt8](repeating: 0, count: 16))
        expectCENCError(.unsupported) { _ = try CBCSSampleCipher(key: Self.key, trackEncryption: perSampleIV) }
        let shortIV = TrackEncryptionBox(defaultPerSampleIVSize: 0, defaultKID: [UInt8](repeating: 0, count: 16),
                                         defaultConstantIV: [UInt8](repeating: 0, count: 8))
        expectCENCError(.unsupported) { _ = try CBCSSampleCipher(key: Self.key, trackEncryption: shortIV) }
    }

    /// Real samples: every subsample's clear bytes and skip blocks untouched, crypt blocks
    /// exactly as AES-CBC from the constant IV, and decryption restores the sample.
    @Test(arguments: StreamSpec.all.filter { ["high-bframes-4slices", "baseline-130x74-cavlc", "intra-only-lossless"].contains($0.name) })
    func realSamples(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        var generator = try H264SubsampleGenerator(parameterSets: H264.ParameterSets(), nalUnitLengthSize: 4)
        let cipher = try CBCSSampleCipher(key: Self.key, constantIV: Self.iv, pattern: .video)
        for plain in stream.samples() {
            let map = try generator.subsamples(for: plain)
            var sample = plain
            try cipher.encrypt(&sample, subsamples: map)
            var offset = 0
            for subsample in map {
                let clearEnd = offset + Int(subsample.bytesOfClearData)
                #expect(sample[offset ..< clearEnd] == plain[offset ..< clearEnd])
                let end = clearEnd + Int(subsample.bytesOfProtectedData)
                try Self.checkRange(plain, sample, clearEnd ..< end, skip: 9)
                offset = end
            }
            try cipher.decrypt(&sample, subsamples: map)
            #expect(sample == plain)
        }
    }
}
