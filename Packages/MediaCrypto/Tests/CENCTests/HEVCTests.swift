// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Testing
import MediaDRMMP4
@testable import MediaDRMCENC

/// HEVC NAL units, parameter sets and random access points (ITU-T H.265 §7.3.1.2, §7.3.2.2.1,
/// §7.3.3, Table 7-1) as the packager reads an `hvc1`/`hev1` track.
@Suite struct HEVCTests {
    /// libx265's parameter sets for a Main, level_idc 60, 320x180 clip.
    static let vps: [UInt8] = hevcHex("40010c01ffff01600000030090000003000003003c959809")
    static let sps: [UInt8] = hevcHex("42010101600000030090000003000003003ca00a080b9f796566924caf016808000003000800000300c840")
    static let pps: [UInt8] = hevcHex("4401c172b46240")
    static let idr: [UInt8] = [19 << 1, 0x01, 0xAF, 0x18, 0x00]
    static let cra: [UInt8] = [21 << 1, 0x01, 0xAF, 0x18, 0x00]
    static let trailing: [UInt8] = [1 << 1, 0x01, 0xD0, 0x00]
    static let delimiter: [UInt8] = [35 << 1, 0x01, 0x50]

    static func configuration(level: UInt8 = 60, sets: [[UInt8]] = [vps, sps, pps]) -> HEVCConfigurationBox {
        var hvcC = HEVCConfigurationBox()
        hvcC.generalProfileIDC = 1
        hvcC.generalProfileCompatibilityFlags = 0x6000_0000
        hvcC.generalConstraintIndicatorFlags = [0x90, 0, 0, 0, 0, 0]
        hvcC.generalLevelIDC = level
        hvcC.arrays = sets.map { .init(arrayCompleteness: true, nalUnitType: ($0[0] >> 1) & 0x3F, nalUnits: [$0]) }
        return hvcC
    }

    static func sample(_ units: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for unit in units {
            let length = UInt32(unit.count)
            bytes += [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            bytes += unit
        }
        return bytes
    }

    @Test func nalUnitHeaders() throws {
        let units = try HEVC.NALUnit.split(Self.sample([Self.delimiter, Self.vps, Self.idr]), lengthSize: 4)
        #expect(units.map(\.typeCode) == [35, 32, 19])
        #expect(units.map(\.type) == [.accessUnitDelimiter, .videoParameterSet, .instantaneousDecodingRefreshWithRADL])
        #expect(units.map(\.isVideoCodingLayer) == [false, false, true])
        #expect(units.map(\.isRandomAccessPoint) == [false, false, true])
        #expect(units[2].layerID == 0 && units[2].temporalIDPlus1 == 1)
        #expect(units[1].range == 4 + Self.delimiter.count + 4 ..< 4 + Self.delimiter.count + 4 + Self.vps.count)
    }

    @Test func malformedNALUnitsAreRefused() {
        func refused(_ sample: [UInt8], _ code: CENCError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(throws: CENCError(code, ""), sourceLocation: sourceLocation) { try HEVC.NALUnit.split(sample, lengthSize: 4) }
        }
        refused(Self.sample([[0x26]]), .invalidNALUnit)  // one byte: no room for the header
        refused(Self.sample([[0xA6, 0x01, 0x00]]), .invalidNALUnit)  // forbidden_zero_bit
        refused(Self.sample([[0x26, 0x00, 0x00]]), .invalidNALUnit)  // nuh_temporal_id_plus1 0
        refused([0, 0, 0, 9, 0x26, 0x01], .truncated)
        refused([0, 0], .truncated)
        #expect(throws: CENCError(.unsupported, "")) { try HEVC.NALUnit.split(Self.sample([Self.idr]), lengthSize: 3) }
    }

    @Test func sequenceParameterSet() throws {
        let sps = try HEVC.SequenceParameterSet(nalUnit: Self.sps)
        #expect(sps.videoParameterSetID == 0)
        #expect(sps.maxSubLayersMinus1 == 0)
        #expect(sps.id == 0)
        #expect(sps.chromaFormatIDC == 1)
        #expect(sps.picWidthInLumaSamples == 320)
        #expect(sps.picHeightInLumaSamples == 184)  // coded in 8x8 units; the conformance window crops to 180
        #expect(sps.profileTierLevel == HEVCSampleAnalyzer.declaredProfile(Self.configuration()))
        // Every truncation fails with a typed error, never a trap.
        for length in 0 ..< 22 {
            #expect(throws: CENCError.self) { try HEVC.SequenceParameterSet(nalUnit: Self.sps.prefix(length)) }
        }
        #expect(throws: CENCError(.invalidNALUnit, "")) { try HEVC.SequenceParameterSet(nalUnit: Self.pps) }
    }

    /// Six sub-layers, each with its profile and level: 72 bytes of sub-layer fields before the
    /// SPS id, read past.
    @Test func sequenceParameterSetWithSubLayers() throws {
        var bits = "0000" + "110" + "1"  // sps_video_parameter_set_id 0, sps_max_sub_layers_minus1 6, nesting
        bits += "00" + "0" + "00001" + String(repeating: "0", count: 32) + String(repeating: "0", count: 48) + "01011101"  // level 93
        bits += String(repeating: "11", count: 6) + "0000"  // profile and level present, reserved_zero_2bits
        bits += String(repeating: "00010001", count: 6 * 12)  // sub-layer profiles and levels
        bits += "1" + "010" + "00000000101000001" + "0000000" + "10111001"  // id 0, 4:2:0, 320, 184
        bits += "0" + "1" + "1" + "00101" + "0" + "00100" + "1" + "1"  // no cropping, 8-bit, 8-bit POC LSB, sub-layer 6 ordering
        bits += "1" + "011" + "1" + "00100" + "1" + "1"  // CB 8..32, TB 4..32, hierarchy depths 0
        bits += "0" + "0" + "1" + "0" + "1" + "0" + "1" + "1"  // no scaling lists, AMP or PCM; SAO; no st/lt sets; TMVP, smoothing
        bits += "0" + "0" + "1"  // no VUI, no extensions, stop bit
        bits += String(repeating: "0", count: (8 - bits.count % 8) % 8)
        let payload = stride(from: 0, to: bits.count, by: 8).map { i in
            UInt8(bits[bits.index(bits.startIndex, offsetBy: i) ..< bits.index(bits.startIndex, offsetBy: i + 8)], radix: 2) ?? 0
        }
        let sps = try HEVC.SequenceParameterSet(nalUnit: [0x42, 0x01] + payload)
        #expect(sps.maxSubLayersMinus1 == 6)
        #expect(sps.profileTierLevel.levelIDC == 93)
        #expect(sps.picWidthInLumaSamples == 320 && sps.picHeightInLumaSamples == 184)
    }

    @Test func parameterSetsFromTheRecord() throws {
        let sets = try HEVC.ParameterSets(configuration: Self.configuration())
        #expect(sets.isComplete)
        #expect(sets.videoParameterSetIDs == [0])
        #expect(sets.pictureParameterSets.mapValues(\.sequenceParameterSetID) == [0: 0])
        #expect(!(try HEVC.ParameterSets(configuration: Self.configuration(sets: [Self.vps, Self.sps]))).isComplete)
        // A PPS before its SPS names a parameter set that was never given.
        #expect(throws: CENCError(.missingParameterSet, "")) {
            try HEVC.ParameterSets(configuration: Self.configuration(sets: [Self.vps, Self.pps]))
        }
    }

    @Test func randomAccessPoints() throws {
        var analyzer = try HEVCSampleAnalyzer(configuration: Self.configuration())
        let idr = try analyzer.analyze(Self.sample([Self.delimiter, Self.idr]))
        #expect(idr.isRandomAccessPoint && idr.startsIndependently)
        let cra = try analyzer.analyze(Self.sample([Self.cra]))
        #expect(cra.isRandomAccessPoint && cra.startsIndependently)
        let trailing = try analyzer.analyze(Self.sample([Self.trailing]))
        #expect(!trailing.isRandomAccessPoint && !trailing.startsIndependently)
        #expect(throws: CENCError(.invalidNALUnit, "")) { try analyzer.analyze(Self.sample([Self.delimiter])) }
    }

    /// `hev1` without parameter sets in `hvcC`: an IRAP picture starts a segment only when the
    /// sample carries the VPS, SPS and PPS in band before it.
    @Test func inBandParameterSets() throws {
        var analyzer = try HEVCSampleAnalyzer(configuration: Self.configuration(sets: []))
        let first = try analyzer.analyze(Self.sample([Self.vps, Self.sps, Self.pps, Self.idr]))
        #expect(first.startsIndependently)
        #expect(first.inBandParameterSets == [32, 33, 34])
        #expect(analyzer.parameterSets.isComplete)
        let bare = try analyzer.analyze(Self.sample([Self.cra]))
        #expect(bare.isRandomAccessPoint && !bare.startsIndependently)
    }

    /// The `CODECS` string comes from `hvcC`, so an SPS above the record's level (or of another
    /// profile) is refused, from the record or in band.
    @Test func parameterSetsMustAgreeWithTheRecord() throws {
        #expect(throws: CENCError(.invalidValue, "")) { try HEVCSampleAnalyzer(configuration: Self.configuration(level: 30)) }
        var analyzer = try HEVCSampleAnalyzer(configuration: Self.configuration(level: 30, sets: []))
        #expect(throws: CENCError(.invalidValue, "")) { try analyzer.analyze(Self.sample([Self.vps, Self.sps, Self.pps, Self.idr])) }
        var higher = Self.configuration(level: 93)
        higher.generalLevelIDC = 93
        _ = try HEVCSampleAnalyzer(configuration: higher)
        var otherProfile = Self.configuration()
        otherProfile.generalProfileIDC = 2
        #expect(throws: CENCError(.invalidValue, "")) { try HEVCSampleAnalyzer(configuration: otherProfile) }
    }
}

private func hevcHex(_ text: String) -> [UInt8] {
    stride(from: 0, to: text.count, by: 2).map { i in
        let start = text.index(text.startIndex, offsetBy: i)
        return UInt8(text[start ..< text.index(start, offsetBy: 2)], radix: 16) ?? 0
    }
}
