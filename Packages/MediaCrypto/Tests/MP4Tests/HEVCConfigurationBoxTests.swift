import Testing
@testable import MediaDRMMP4

/// `hvcC` (ISO/IEC 14496-15 §8.3.3.1) read from libx265's output, written back byte for byte,
/// refused when truncated or malformed, and its `CODECS` string (Annex E.3).
@Suite struct HEVCConfigurationBoxTests {
    /// The record ffmpeg wrote for a libx265 Main, level 2 (level_idc 60), 320x180 clip: the
    /// fixed 22 bytes, then the VPS, SPS and PPS arrays (x265's SEI array left out).
    static let vps = hex("40010c01ffff01600000030090000003000003003c959809")
    static let sps = hex("42010101600000030090000003000003003ca00a080b9f796566924caf016808000003000800000300c840")
    static let pps = hex("4401c172b46240")
    static let record: [UInt8] = hex("0101600000009000000000003cf000fcfdf8f800000f") + [3]
        + [0xA0] + be16(1) + be16(UInt16(vps.count)) + vps
        + [0xA1] + be16(1) + be16(UInt16(sps.count)) + sps
        + [0xA2] + be16(1) + be16(UInt16(pps.count)) + pps
    static let bytes = box("hvcC", record)

    @Test func readsLibx265Record() throws {
        let hvcC = try readWrite(Self.bytes, as: HEVCConfigurationBox.self)
        #expect(hvcC.generalProfileSpace == 0)
        #expect(!hvcC.generalTierFlag)
        #expect(hvcC.generalProfileIDC == 1)
        #expect(hvcC.generalProfileCompatibilityFlags == 0x6000_0000)
        #expect(hvcC.generalConstraintIndicatorFlags == [0x90, 0, 0, 0, 0, 0])
        #expect(hvcC.generalLevelIDC == 60)
        #expect(hvcC.chromaFormatIDC == 1)
        #expect(hvcC.nalUnitLengthSize == 4)
        #expect(hvcC.arrays.map(\.nalUnitType) == [32, 33, 34])
        #expect(hvcC.arrays.allSatisfy { $0.arrayCompleteness })
        #expect(hvcC.nalUnits(ofType: 33) == [Self.sps])
        #expect(hvcC.trailingBytes.isEmpty)
        #expect(hvcC.codecsString(sampleEntry: "hvc1") == "hvc1.1.6.L60.90")
    }

    @Test func insideAVisualSampleEntry() throws {
        let hvcC = try HEVCConfigurationBox(parsing: Self.bytes)
        for format: FourCC in ["hvc1", "hev1"] {
            var entry = VisualSampleEntry(format: format, width: 320, height: 180, children: [hvcC])
            entry.compressorName = Array(repeating: 0, count: 32)
            let bytes = try roundTrip(entry)
            let parsed = try BoxParser.parse(bytes)
            let visual = try #require(parsed.first as? VisualSampleEntry)
            #expect(visual.hevcConfiguration == hvcC)
        }
    }

    @Test func everyTruncationIsRefused() {
        checkEveryPrefix(of: Self.bytes, as: HEVCConfigurationBox.self)
        // The box size rewritten to each cut, so the record itself is found short.
        for length in 8 ..< Self.bytes.count {
            var cut = Array(Self.bytes[..<length])
            cut.replaceSubrange(0 ..< 4, with: be32(UInt32(length)))
            do {
                _ = try HEVCConfigurationBox(parsing: cut)
                Issue.record("a record cut at \(length) of \(Self.bytes.count) bytes parsed")
            } catch {
                #expect([.truncated, .countTooLarge].contains(error.code), "\(length): \(error.reason)")
            }
        }
    }

    @Test func malformedFieldsAreRefused() {
        var record = Self.record
        record[0] = 2
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .invalidField)  // configurationVersion
        record = Self.record
        record[21] = 0x0E  // lengthSizeMinusOne 2
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .invalidField)
        record = Self.record
        record[22] = 200  // numOfArrays past the bytes left
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .countTooLarge)
        record = Self.record
        record.replaceSubrange(24 ..< 26, with: be16(0xFFFF))  // numNalus of the VPS array
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .countTooLarge)
        record = Self.record
        record.replaceSubrange(26 ..< 28, with: be16(1))  // a NAL unit shorter than its header
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .invalidField)
        record = Self.record
        record.replaceSubrange(26 ..< 28, with: be16(0x4000))  // a NAL unit longer than the box
        expectFailure(box("hvcC", record), as: HEVCConfigurationBox.self, .truncated)

        var tooLong = HEVCConfigurationBox()
        tooLong.arrays = [.init(arrayCompleteness: true, nalUnitType: 33, nalUnits: [Array(repeating: 0x42, count: 70_000)])]
        expectWriteFailure(tooLong, .invalidField)
        var badType = HEVCConfigurationBox()
        badType.arrays = [.init(arrayCompleteness: true, nalUnitType: 64, nalUnits: [])]
        expectWriteFailure(badType, .invalidField)
    }

    /// ISO/IEC 14496-15 Annex E.3's examples and each field's edge.
    @Test func codecsStrings() {
        var hvcC = HEVCConfigurationBox()
        hvcC.generalProfileIDC = 1
        hvcC.generalProfileCompatibilityFlags = 0x6000_0000
        hvcC.generalLevelIDC = 93
        hvcC.generalConstraintIndicatorFlags = [0xB0, 0, 0, 0, 0, 0]
        #expect(hvcC.codecsString(sampleEntry: "hvc1") == "hvc1.1.6.L93.B0")
        hvcC.generalProfileIDC = 2
        hvcC.generalProfileCompatibilityFlags = 0x2000_0000
        hvcC.generalLevelIDC = 120
        #expect(hvcC.codecsString(sampleEntry: "hev1") == "hev1.2.4.L120.B0")
        hvcC.generalProfileSpace = 1
        hvcC.generalTierFlag = true
        hvcC.generalLevelIDC = 153
        hvcC.generalConstraintIndicatorFlags = [0x90, 0, 0x12, 0, 0, 0]
        #expect(hvcC.codecsString(sampleEntry: "hvc1") == "hvc1.A2.4.H153.90.0.12")
        hvcC.generalProfileCompatibilityFlags = 0
        hvcC.generalConstraintIndicatorFlags = Array(repeating: 0, count: 6)
        #expect(hvcC.codecsString(sampleEntry: "hvc1") == "hvc1.A2.0.H153")
        hvcC.generalProfileCompatibilityFlags = 0x0000_0001  // flag 31 alone: the last bit reversed is the first
        #expect(hvcC.codecsString(sampleEntry: "hvc1") == "hvc1.A2.80000000.H153")
    }
}
