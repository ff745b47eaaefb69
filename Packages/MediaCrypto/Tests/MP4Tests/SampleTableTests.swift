import Foundation
import Testing
@testable import MediaDRMMP4

@Suite struct SampleTableTests {
    @Test func timeToSample() throws {
        let stts = TimeToSampleBox(entries: [.init(sampleCount: 49, sampleDelta: 512), .init(sampleCount: 1, sampleDelta: 256)])
        #expect(try roundTrip(stts) == fullBox("stts", version: 0, flags: 0, be32(2) + be32(49) + be32(512) + be32(1) + be32(256)))
        try roundTrip(TimeToSampleBox())
    }

    @Test func compositionOffsetsVersion0And1() throws {
        let v0 = CompositionOffsetBox(entries: [.init(sampleCount: 1, sampleOffset: 0xFFFF_FFF0), .init(sampleCount: 2, sampleOffset: 0)])
        let bytes0 = try roundTrip(v0)
        #expect(bytes0 == fullBox("ctts", version: 0, flags: 0, be32(2) + be32(1) + be32(0xFFFF_FFF0) + be32(2) + be32(0)))
        // Negative offsets need version 1; the writer chooses it.
        let negative = CompositionOffsetBox(entries: [.init(sampleCount: 1, sampleOffset: -512), .init(sampleCount: 1, sampleOffset: 512)])
        let bytes1 = try negative.serializedBytes()
        #expect(bytes1 == fullBox("ctts", version: 1, flags: 0, be32(2) + be32(1) + be32(0xFFFF_FE00) + be32(1) + be32(512)))
        var v1 = negative
        v1.version = 1
        #expect(try CompositionOffsetBox(parsing: bytes1) == v1)
        try roundTrip(v1)
        // Version 1 reads the same bits as signed.
        let reread = try CompositionOffsetBox(parsing: fullBox("ctts", version: 1, flags: 0, be32(1) + be32(1) + be32(0xFFFF_FFF0)))
        #expect(reread.entries[0].sampleOffset == -16)
        // A value neither form holds.
        expectWriteFailure(CompositionOffsetBox(entries: [.init(sampleCount: 1, sampleOffset: -1), .init(sampleCount: 1, sampleOffset: 1 << 32)]),
                           .invalidField)
        expectFailure(fullBox("ctts", version: 2, flags: 0, be32(0)), as: CompositionOffsetBox.self, .unsupportedVersion)
    }

    @Test func syncSamples() throws {
        #expect(try roundTrip(SyncSampleBox(sampleNumbers: [1, 26, 51])) == fullBox("stss", version: 0, flags: 0, be32(3) + be32(1) + be32(26) + be32(51)))
    }

    @Test func sampleToChunk() throws {
        let stsc = SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 3, sampleDescriptionIndex: 1),
                                              .init(firstChunk: 5, samplesPerChunk: 1, sampleDescriptionIndex: 1)])
        #expect(try roundTrip(stsc).count == 16 + 24)
    }

    @Test func sampleSizes() throws {
        let perSample = SampleSizeBox(entrySizes: [10, 20, 30])
        #expect(try roundTrip(perSample) == fullBox("stsz", version: 0, flags: 0, be32(0) + be32(3) + be32(10) + be32(20) + be32(30)))
        #expect(perSample.size(ofSample: 2) == 30)
        #expect(perSample.size(ofSample: 3) == nil)
        let constant = SampleSizeBox(sampleSize: 4, sampleCount: 1000)
        #expect(try roundTrip(constant) == fullBox("stsz", version: 0, flags: 0, be32(4) + be32(1000)))
        #expect(constant.size(ofSample: 999) == 4)
        var bad = perSample
        bad.sampleCount = 4
        expectWriteFailure(bad, .invalidField)
        var mixed = constant
        mixed.entrySizes = [1]
        expectWriteFailure(mixed, .invalidField)
    }

    @Test func chunkOffsets() throws {
        #expect(try roundTrip(ChunkOffsetBox(chunkOffsets: [48, 1000])) == fullBox("stco", version: 0, flags: 0, be32(2) + be32(48) + be32(1000)))
        #expect(try roundTrip(ChunkLargeOffsetBox(chunkOffsets: [1 << 33])) == fullBox("co64", version: 0, flags: 0, be32(1) + be32(2) + be32(0)))
        var stbl = SampleTableBox()
        stbl.children = [ChunkLargeOffsetBox(chunkOffsets: [7])]
        #expect(stbl.chunkOffsets == [7])
    }

    @Test func sampleDescription() throws {
        let stsd = SampleDescriptionBox(entries: [VisualSampleEntry(width: 2, height: 2, children: []), UnknownBox(type: "vp09", payload: [1])])
        let bytes = try roundTrip(stsd)
        checkEveryPrefix(of: bytes, as: SampleDescriptionBox.self)
    }
}
