import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct FragmentBoxTests {
    @Test func trackExtends() throws {
        let trex = TrackExtendsBox(trackID: 1, defaultSampleDuration: 512, defaultSampleFlags: 0x0101_0000)
        #expect(try roundTrip(trex) == fullBox("trex", version: 0, flags: 0, be32(1) + be32(1) + be32(512) + be32(0) + be32(0x0101_0000)))
        try roundTrip(MovieExtendsBox(children: [trex, TrackExtendsBox(trackID: 2)]))
    }

    @Test func movieFragmentHeader() throws {
        #expect(try roundTrip(MovieFragmentHeaderBox(sequenceNumber: 7)) == fullBox("mfhd", version: 0, flags: 0, be32(7)))
    }

    @Test func trackFragmentHeaderEveryFlag() throws {
        var tfhd = TrackFragmentHeaderBox(trackID: 2)
        #expect(try roundTrip(tfhd) == fullBox("tfhd", version: 0, flags: 0x02_0000, be32(2)))
        tfhd.baseDataOffset = 1 << 40
        tfhd.sampleDescriptionIndex = 1
        tfhd.defaultSampleDuration = 1024
        tfhd.defaultSampleSize = 300
        tfhd.defaultSampleFlags = 0x0201_0000
        tfhd.durationIsEmpty = true
        #expect(tfhd.flags == 0x03_003B)
        let bytes = try roundTrip(tfhd)
        #expect(bytes == fullBox("tfhd", version: 0, flags: 0x03_003B, be32(2) + be32(0x100) + be32(0) + be32(1) + be32(1024) + be32(300) + be32(0x0201_0000)))
        checkEveryPrefix(of: bytes, as: TrackFragmentHeaderBox.self)
        // Each optional field alone.
        for keep in 0 ..< 5 {
            var one = TrackFragmentHeaderBox(trackID: 3, defaultBaseIsMoof: false)
            switch keep {
            case 0: one.baseDataOffset = 9
            case 1: one.sampleDescriptionIndex = 2
            case 2: one.defaultSampleDuration = 3
            case 3: one.defaultSampleSize = 4
            default: one.defaultSampleFlags = 5
            }
            try roundTrip(one)
        }
        expectFailure(fullBox("tfhd", version: 0, flags: 0x04, be32(1)), as: TrackFragmentHeaderBox.self, .invalidField)
        expectFailure(fullBox("tfhd", version: 0, flags: 0x01, be32(1) + be32(0)), as: TrackFragmentHeaderBox.self, .truncated)
        expectFailure(fullBox("tfhd", version: 0, flags: 0, be32(0)), as: TrackFragmentHeaderBox.self, .invalidField)
    }

    @Test func decodeTimeVersions() throws {
        var v0 = TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: 1024, version: 0)
        #expect(try roundTrip(v0) == fullBox("tfdt", version: 0, flags: 0, be32(1024)))
        let v1 = TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: 1024)
        #expect(try roundTrip(v1) == fullBox("tfdt", version: 1, flags: 0, be32(0) + be32(1024)))
        v0.baseMediaDecodeTime = 1 << 32
        #expect(try v0.serializedBytes() == fullBox("tfdt", version: 1, flags: 0, be32(1) + be32(0)))
    }

    @Test func trackRunVersion0AllFields() throws {
        let samples = (0 ..< 3).map { i in
            TrackRunBox.Sample(sampleDuration: 512, sampleSize: UInt32(100 + i), sampleFlags: 0x0101_0000, sampleCompositionTimeOffset: Int64(i * 512))
        }
        let trun = TrackRunBox(dataOffset: 200, firstSampleFlags: 0x0200_0000, samples: samples)
        #expect(trun.flags == 0xF05)
        let bytes = try roundTrip(trun)
        var expected = be32(3) + be32(200) + be32(0x0200_0000)
        for i in 0 ..< 3 { expected += be32(512) + be32(UInt32(100 + i)) + be32(0x0101_0000) + be32(UInt32(i * 512)) }
        #expect(bytes == fullBox("trun", version: 0, flags: 0xF05, expected))
        checkEveryPrefix(of: bytes, as: TrackRunBox.self)
    }

    @Test func trackRunVersion1SignedOffsets() throws {
        let samples = [TrackRunBox.Sample(sampleSize: 10, sampleCompositionTimeOffset: -512),
                       TrackRunBox.Sample(sampleSize: 11, sampleCompositionTimeOffset: 1024)]
        let trun = TrackRunBox(dataOffset: -8, samples: samples)
        let bytes = try trun.serializedBytes()
        #expect(bytes == fullBox("trun", version: 1, flags: 0xA01, be32(2) + be32(0xFFFF_FFF8) + be32(10) + be32(0xFFFF_FE00) + be32(11) + be32(1024)))
        var v1 = trun
        v1.version = 1
        #expect(try TrackRunBox(parsing: bytes) == v1)
        try roundTrip(v1)
        // The same bits in version 0 are a large unsigned offset.
        var v0Bytes = bytes
        v0Bytes[8] = 0
        #expect(try TrackRunBox(parsing: v0Bytes).samples[0].sampleCompositionTimeOffset == 0xFFFF_FE00)
    }

    @Test func trackRunEachOptionalField() throws {
        let variants: [TrackRunBox] = [
            TrackRunBox(dataOffset: nil, samples: []),
            TrackRunBox(dataOffset: 8, samples: []),
            TrackRunBox(dataOffset: nil, firstSampleFlags: 1, samples: [.init(sampleSize: 1)]),
            TrackRunBox(dataOffset: nil, samples: [.init(sampleDuration: 1), .init(sampleDuration: 2)]),
            TrackRunBox(dataOffset: nil, samples: [.init(sampleFlags: 1)]),
            TrackRunBox(dataOffset: nil, samples: [.init(sampleCompositionTimeOffset: 5)]),
        ]
        for trun in variants { try roundTrip(trun) }
    }

    @Test func trackRunMalformed() {
        // Data offset announced but missing.
        expectFailure(fullBox("trun", version: 0, flags: 0x001, be32(0)), as: TrackRunBox.self, .truncated)
        // First sample flags announced but missing.
        expectFailure(fullBox("trun", version: 0, flags: 0x005, be32(0) + be32(8)), as: TrackRunBox.self, .truncated)
        // Unknown flag bits.
        expectFailure(fullBox("trun", version: 0, flags: 0x002, be32(0)), as: TrackRunBox.self, .invalidField)
        expectFailure(fullBox("trun", version: 0, flags: 0x1000, be32(0)), as: TrackRunBox.self, .invalidField)
        // More samples than bytes.
        expectFailure(fullBox("trun", version: 0, flags: 0x301, be32(1000) + be32(8) + be32(1) + be32(2)), as: TrackRunBox.self, .countTooLarge)
        expectFailure(fullBox("trun", version: 0, flags: 0x200, be32(0xFFFF_FFFF)), as: TrackRunBox.self, .countTooLarge)
        // Samples that occupy no bytes are bounded by the option's limit.
        expectFailure(fullBox("trun", version: 0, flags: 0x001, be32(0xFFFF_FFFF) + be32(8)), as: TrackRunBox.self, .countTooLarge)
        #expect((try? TrackRunBox(parsing: fullBox("trun", version: 0, flags: 0x001, be32(5) + be32(8))))?.samples.count == 5)
        // Writer: samples with different fields; an offset neither version holds.
        expectWriteFailure(TrackRunBox(dataOffset: nil, samples: [.init(sampleSize: 1), .init(sampleDuration: 1)]), .invalidField)
        expectWriteFailure(TrackRunBox(dataOffset: nil, samples: [.init(sampleCompositionTimeOffset: -1), .init(sampleCompositionTimeOffset: 1 << 31)]), .invalidField)
    }

    static let subsampleSenc = SampleEncryptionBox(perSampleIVSize: 8, usesSubsamples: true, samples: [
        .init(initializationVector: [1, 2, 3, 4, 5, 6, 7, 8],
              subsamples: [.init(bytesOfClearData: 5, bytesOfProtectedData: 160), .init(bytesOfClearData: 65535, bytesOfProtectedData: 0)]),
        .init(initializationVector: [8, 7, 6, 5, 4, 3, 2, 1], subsamples: []),
    ])

    @Test func sampleEncryptionWithSubsamples() throws {
        let bytes = try roundTrip(Self.subsampleSenc, options: DecodingOptions(defaultPerSampleIVSize: 8))
        #expect(bytes == fullBox("senc", version: 0, flags: 2, be32(2) + [1, 2, 3, 4, 5, 6, 7, 8] + be16(2) + be16(5) + be32(160)
                                 + be16(65535) + be32(0) + [8, 7, 6, 5, 4, 3, 2, 1] + be16(0)))
        checkEveryPrefix(of: bytes, as: SampleEncryptionBox.self, options: DecodingOptions(defaultPerSampleIVSize: 8))
        // Without a size given, the only size that fits is found.
        #expect(try SampleEncryptionBox(parsing: bytes) == Self.subsampleSenc)
        // cbcs with a constant IV: no per-sample IV, subsamples only.
        let cbcs = SampleEncryptionBox(perSampleIVSize: 0, usesSubsamples: true, samples: [
            .init(subsamples: [.init(bytesOfClearData: 100, bytesOfProtectedData: 1600)]),
        ])
        try roundTrip(cbcs, options: DecodingOptions(defaultPerSampleIVSize: 0))
        try roundTrip(cbcs)
    }

    @Test func sampleEncryptionWithoutSubsamples() throws {
        let senc = SampleEncryptionBox(perSampleIVSize: 16, usesSubsamples: false, samples: [
            .init(initializationVector: Array(0 ..< 16)), .init(initializationVector: Array(16 ..< 32)),
        ])
        let bytes = try roundTrip(senc, options: DecodingOptions(perSampleIVSizes: [1: 16]))
        #expect(bytes == fullBox("senc", version: 0, flags: 0, be32(2) + Array(0 ..< 32)))
        // With 2 samples of 16 bytes each, 8 does not fill the box either: inference finds 16.
        #expect(try SampleEncryptionBox(parsing: bytes) == senc)
        // Read with a wrong given size the box does not parse.
        expectFailure(bytes, as: SampleEncryptionBox.self, .invalidSize, options: DecodingOptions(defaultPerSampleIVSize: 8))
        // Audio cbcs: constant IV, no subsamples, entries are empty.
        let empty = SampleEncryptionBox(perSampleIVSize: 0, usesSubsamples: false, samples: Array(repeating: .init(), count: 4))
        try roundTrip(empty, options: DecodingOptions(defaultPerSampleIVSize: 0))
    }

    @Test func sampleEncryptionMalformed() throws {
        let options = DecodingOptions(defaultPerSampleIVSize: 8)
        // More samples than bytes.
        expectFailure(fullBox("senc", version: 0, flags: 0, be32(3) + Array(repeating: 0, count: 16)), as: SampleEncryptionBox.self, .countTooLarge, options: options)
        // Subsample count larger than the bytes left.
        expectFailure(fullBox("senc", version: 0, flags: 2, be32(1) + Array(repeating: 0, count: 8) + be16(100) + be16(1) + be32(1)),
                      as: SampleEncryptionBox.self, .countTooLarge, options: options)
        // Unknown flags.
        expectFailure(fullBox("senc", version: 0, flags: 1, be32(0)), as: SampleEncryptionBox.self, .invalidField, options: options)
        // A given size that is not 0, 8 or 16.
        expectFailure(fullBox("senc", version: 0, flags: 0, be32(0)), as: SampleEncryptionBox.self, .invalidField,
                      options: DecodingOptions(defaultPerSampleIVSize: 4))
        // Ambiguous without a size: three samples that read as 8-byte IVs without subsamples, or as
        // no IVs with 1, 0 and 3 subsamples (16-byte IVs run into a huge subsample count).
        let body: [UInt8] = [0, 1, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11] + be16(0) + [0, 3, 0, 0, 0, 0, 0xFF, 0xFF] + be16(0)
            + Array(repeating: 0x22, count: 8) + be16(0)
        let ambiguous = fullBox("senc", version: 0, flags: 2, be32(3) + body)
        expectFailure(ambiguous, as: SampleEncryptionBox.self, .invalidField)
        let asZero = try SampleEncryptionBox(parsing: ambiguous, options: DecodingOptions(defaultPerSampleIVSize: 0))
        #expect(asZero.samples.map(\.subsamples.count) == [1, 0, 3])
        let asEight = try SampleEncryptionBox(parsing: ambiguous, options: DecodingOptions(defaultPerSampleIVSize: 8))
        #expect(asEight.samples.map(\.subsamples.count) == [0, 0, 0])
        #expect(try asZero.serializedBytes() == ambiguous && asEight.serializedBytes() == ambiguous)
        // No samples: every size fits and the smallest is taken.
        #expect(try SampleEncryptionBox(parsing: fullBox("senc", version: 0, flags: 0, be32(0))).perSampleIVSize == 0)
        // No size fits.
        expectFailure(fullBox("senc", version: 0, flags: 0, be32(1) + [1, 2, 3]), as: SampleEncryptionBox.self, .invalidField)
        // Writer: IVs of the wrong size, subsamples without the flag, an illegal size.
        var wrongIV = Self.subsampleSenc
        wrongIV.perSampleIVSize = 16
        expectWriteFailure(wrongIV, .invalidField)
        var noFlag = Self.subsampleSenc
        noFlag.usesSubsamples = false
        expectWriteFailure(noFlag, .invalidField)
        expectWriteFailure(SampleEncryptionBox(perSampleIVSize: 4, usesSubsamples: false, samples: []), .invalidField)
        var tooManySubsamples = Self.subsampleSenc
        tooManySubsamples.samples[0].subsamples = Array(repeating: .init(bytesOfClearData: 1, bytesOfProtectedData: 1), count: 65536)
        expectWriteFailure(tooManySubsamples, .invalidField)
    }

    @Test func auxiliaryInformationSizesAndOffsets() throws {
        let perSample = SampleAuxiliaryInformationSizesBox(sampleInfoSizes: [16, 22, 28])
        #expect(try roundTrip(perSample) == fullBox("saiz", version: 0, flags: 0, [0] + be32(3) + [16, 22, 28]))
        let typed = SampleAuxiliaryInformationSizesBox(auxInfoType: .init(auxInfoType: "cbcs"), defaultSampleInfoSize: 8, sampleCount: 50)
        #expect(try roundTrip(typed) == fullBox("saiz", version: 0, flags: 1, Array("cbcs".utf8) + be32(0) + [8] + be32(50)))
        var bad = perSample
        bad.sampleCount = 9
        expectWriteFailure(bad, .invalidField)

        let saio = SampleAuxiliaryInformationOffsetsBox(offsets: [100])
        #expect(try roundTrip(saio) == fullBox("saio", version: 0, flags: 0, be32(1) + be32(100)))
        let wide = SampleAuxiliaryInformationOffsetsBox(auxInfoType: .init(auxInfoType: "cenc", auxInfoTypeParameter: 1), offsets: [1 << 33])
        let wideBytes = try wide.serializedBytes()
        #expect(wideBytes == fullBox("saio", version: 1, flags: 1, Array("cenc".utf8) + be32(1) + be32(1) + be32(2) + be32(0)))
        var wideV1 = wide
        wideV1.version = 1
        try roundTrip(wideV1)
        expectFailure(fullBox("saio", version: 0, flags: 2, be32(0)), as: SampleAuxiliaryInformationOffsetsBox.self, .invalidField)
    }

    static func fragment() -> MovieFragmentBox {
        var tfhd = TrackFragmentHeaderBox(trackID: 1)
        tfhd.defaultSampleFlags = 0x0101_0000
        let traf = TrackFragmentBox(children: [
            tfhd,
            TrackFragmentBaseMediaDecodeTimeBox(baseMediaDecodeTime: 0),
            TrackRunBox(dataOffset: 300, firstSampleFlags: 0x0200_0000, samples: [.init(sampleDuration: 512, sampleSize: 1000), .init(sampleDuration: 512, sampleSize: 800)]),
            SampleAuxiliaryInformationSizesBox(defaultSampleInfoSize: 0, sampleCount: 0),
            SampleAuxiliaryInformationOffsetsBox(offsets: [120]),
            subsampleSenc,
        ])
        return MovieFragmentBox(children: [MovieFragmentHeaderBox(sequenceNumber: 1), traf,
                                           ProtectionSystemSpecificHeaderBox(systemID: ProtectionBoxTests.commonSystemID, keyIDs: [ProtectionBoxTests.kid], data: [])])
    }

    @Test func movieFragmentWithEncryption() throws {
        let options = DecodingOptions(perSampleIVSizes: [1: 8])
        let moof = Self.fragment()
        let bytes = try roundTrip(moof, options: options)
        let parsed = try MovieFragmentBox(parsing: bytes, options: options)
        #expect(parsed.trackFragments.first?.sampleEncryption == Self.subsampleSenc)
        #expect(parsed.trackFragments.first?.trackRuns.first?.samples.count == 2)
        checkEveryPrefix(of: bytes, as: MovieFragmentBox.self, options: options)
        // A senc of another track with a given size of 16 does not fit this box.
        #expect(throws: MP4Error.self) { try MovieFragmentBox(parsing: bytes, options: DecodingOptions(perSampleIVSizes: [1: 16])) }
        // The size of another track does not apply.
        #expect(try MovieFragmentBox(parsing: bytes, options: DecodingOptions(perSampleIVSizes: [2: 16])) == moof)
        expectWriteFailure(TrackFragmentBox(children: [TrackFragmentBaseMediaDecodeTimeBox()]), .missingBox)
        expectWriteFailure(MovieFragmentBox(), .missingBox)
    }

    @Test func perSampleIVSizesFromTheMovie() throws {
        let sinf = ProtectionSchemeInfoBox(children: [OriginalFormatBox(dataFormat: "avc1"), SchemeTypeBox(schemeType: "cenc"),
                                                      SchemeInformationBox(children: [TrackEncryptionBox(defaultPerSampleIVSize: 8, defaultKID: ProtectionBoxTests.kid)])])
        var track = MovieBoxTests.videoTrack()
        var mdia = try #require(track.media)
        var minf = try #require(mdia.mediaInformation)
        var stbl = try #require(minf.sampleTable)
        stbl.sampleDescription = SampleDescriptionBox(entries: [VisualSampleEntry(format: "encv", width: 2, height: 2, children: [SampleEntryTests.avcC, sinf])])
        minf.sampleTable = stbl
        mdia.mediaInformation = minf
        track.media = mdia
        let moov = MovieBox(children: [MovieHeaderBox(), track])
        let parsed = try MovieBox(parsing: roundTrip(moov))
        #expect(parsed.perSampleIVSizes == [1: 8])
    }
}
