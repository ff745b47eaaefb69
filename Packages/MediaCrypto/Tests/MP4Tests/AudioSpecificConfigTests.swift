import Testing
import MediaDRMMP4

/// The one AudioSpecificConfig reader (the packager's and fps-v2 admission's) and the bit reader
/// under it.
@Suite struct AudioSpecificConfigTests {
    @Test func fieldsOfCommonConfigurations() throws {
        let lc = try AudioSpecificConfig(bytes: [0x12, 0x10])  // AAC-LC, 44.1 kHz, stereo
        #expect(lc.audioObjectType == 2 && lc.samplingFrequency == 44_100 && lc.channelCount == 2)
        let sevenOne = try AudioSpecificConfig(bytes: [0x11, 0xB8])  // AAC-LC, 48 kHz, configuration 7
        #expect(sevenOne.channelConfiguration == 7 && sevenOne.channelCount == 8)
    }

    @Test func truncatedBytesAreATypedError() {
        #expect(throws: MP4Error(.truncated, "")) { _ = try AudioSpecificConfig(bytes: [0x12]) }
        #expect(throws: MP4Error(.truncated, "")) { _ = try AudioSpecificConfig(bytes: []) }
        // Index 15 announces 24 more bits of frequency that are not there.
        #expect(throws: MP4Error(.truncated, "")) { _ = try AudioSpecificConfig(bytes: [0x17, 0x80]) }
    }

    @Test func escapedObjectTypeExplicitAndReservedFrequencies() throws {
        // Object type 31 + 6 bits (5 → 37), index 15 with 48000 in 24 bits, configuration 2.
        var bits = BitWriter()
        bits.write(31, 5); bits.write(5, 6); bits.write(15, 4); bits.write(48_000, 24); bits.write(2, 4)
        let escaped = try AudioSpecificConfig(bytes: bits.bytes)
        #expect(escaped.audioObjectType == 37 && escaped.samplingFrequency == 48_000 && escaped.channelCount == 2)
        // Index 13 is reserved: read, with no frequency; configuration 0 has no channel count.
        let reserved = try AudioSpecificConfig(bytes: [0x16, 0x80])
        #expect(reserved.samplingFrequencyIndex == 13 && reserved.samplingFrequency == nil && reserved.channelCount == nil)
    }

    @Test func bitReaderReadsAcrossBytesAndRefusesPastTheEnd() throws {
        var reader = BitReader([0b1010_1100, 0b0101_0011])
        #expect(try reader.readBits(3) == 0b101)
        #expect(try reader.readBits(9) == 0b0_1100_0101)
        #expect(try reader.readFlag() == false)
        #expect(reader.bitsLeft == 3)
        #expect(throws: MP4Error(.truncated, "")) { try reader.readBits(4) }
        #expect(throws: MP4Error(.invalidField, "")) { try reader.readBits(33) }
        try reader.skipBits(3)
        #expect(reader.bitsLeft == 0 && reader.bitPosition == 16)
    }
}

/// Most significant bit first, for building test inputs.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: Int, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if used % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used % 8) }
            used += 1
        }
    }
}
