import Foundation
import MediaDRMMP4
import Testing
@testable import MediaDRMCENC

@Suite("cbcs subsample maps of H.264 samples")
struct H264SubsampleGeneratorTests {
    static func craftedGenerator() throws -> H264SubsampleGenerator {
        try H264SubsampleGenerator(parameterSets: H264SliceHeaderTests.craftedParameterSets(), nalUnitLengthSize: 4)
    }

    /// A crafted IDR slice with `dataBytes` bytes of slice data after its header.
    static func slice(dataBytes: Int) -> (nal: [UInt8], clear: Int) {
        var w = BitWriter()
        w.ue(0); w.ue(7); w.ue(0); w.bits(0, 4); w.ue(0)
        w.flag(false); w.flag(false); w.se(0); w.ue(1)
        let headerBits = w.position
        for index in 0 ..< dataBytes { w.bits(UInt64(0x11 &+ index % 200), 8) }
        w.trailing()
        return (w.nalUnit(header: 0x65), 1 + (headerBits + 7) / 8)
    }

    @Test func rules() throws {
        var generator = try Self.craftedGenerator()
        let aud: [UInt8] = [0x09, 0xF0]
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0x00, 0x80]
        let (slice1, clear1) = Self.slice(dataBytes: 300)
        let (slice2, clear2) = Self.slice(dataBytes: 40)
        let sample = lengthPrefixed(aud) + lengthPrefixed(sei) + lengthPrefixed(slice1) + lengthPrefixed(slice2) + lengthPrefixed(sei)
        let map = try generator.subsamples(for: sample)
        // Non-VCL NAL units merge into the next slice's clear bytes; the trailing SEI is a final
        // clear-only subsample.
        #expect(map == [
            CENCSubsample(bytesOfClearData: UInt16(6 + 9 + 4 + clear1), bytesOfProtectedData: UInt32(slice1.count - clear1)),
            CENCSubsample(bytesOfClearData: UInt16(4 + clear2), bytesOfProtectedData: UInt32(slice2.count - clear2)),
            CENCSubsample(bytesOfClearData: 9, bytesOfProtectedData: 0),
        ])
        try CENCSubsample.validate(map, sampleSize: sample.count)
    }

    @Test func longClearRunsAreSplit() throws {
        var generator = try Self.craftedGenerator()
        let filler = [UInt8(0x0C)] + [UInt8](repeating: 0xFF, count: 70_000) + [0x80]
        let (slice, clear) = Self.slice(dataBytes: 100)
        let sample = lengthPrefixed(filler) + lengthPrefixed(filler) + lengthPrefixed(slice)
        let map = try generator.subsamples(for: sample)
        let clearTotal = 2 * (4 + filler.count) + 4 + clear
        #expect(map.count == 3)
        #expect(map.dropLast().allSatisfy { $0 == CENCSubsample(bytesOfClearData: 65535, bytesOfProtectedData: 0) })
        #expect(map.last == CENCSubsample(bytesOfClearData: UInt16(clearTotal - 2 * 65535), bytesOfProtectedData: UInt32(slice.count - clear)))
        try CENCSubsample.validate(map, sampleSize: sample.count)
        // A clear-only sample over 65,535 bytes ends in clear-only subsamples too.
        let clearOnly = lengthPrefixed(filler)
        let clearMap = try generator.subsamples(for: clearOnly)
        #expect(clearMap == [CENCSubsample(bytesOfClearData: 65535, bytesOfProtectedData: 0),
                             CENCSubsample(bytesOfClearData: UInt16(clearOnly.count - 65535), bytesOfProtectedData: 0)])
    }

    @Test func inBandParameterSetsAreApplied() throws {
        var generator = try H264SubsampleGenerator(parameterSets: H264.ParameterSets(), nalUnitLengthSize: 4)
        let (slice, _) = Self.slice(dataBytes: 20)
        expectCENCError(.missingParameterSet) { _ = try generator.subsamples(for: lengthPrefixed(slice)) }
        var sps = BitWriter()
        sps.bits(66, 8); sps.bits(0, 8); sps.bits(30, 8); sps.ue(0); sps.ue(0); sps.ue(2); sps.ue(1); sps.flag(false)
        sps.ue(10); sps.ue(8); sps.flag(true); sps.flag(true); sps.flag(false); sps.flag(false); sps.trailing()
        var pps = BitWriter()
        pps.ue(0); pps.ue(0); pps.flag(false); pps.flag(false); pps.ue(0); pps.ue(0); pps.ue(0); pps.flag(false); pps.bits(0, 2)
        pps.se(0); pps.se(0); pps.se(0); pps.flag(true); pps.flag(false); pps.flag(false); pps.trailing()
        let sample = lengthPrefixed(sps.nalUnit(header: 0x67)) + lengthPrefixed(pps.nalUnit(header: 0x68)) + lengthPrefixed(slice)
        let map = try generator.subsamples(for: sample)
        #expect(map.count == 1)
        try CENCSubsample.validate(map, sampleSize: sample.count)
        #expect(generator.parameterSets.pictureParameterSets[0] != nil)
    }

    @Test func lengthSizesAndRefusals() throws {
        let (slice, clear) = Self.slice(dataBytes: 50)
        for size in [1, 2, 4] {
            var generator = try H264SubsampleGenerator(parameterSets: H264SliceHeaderTests.craftedParameterSets(), nalUnitLengthSize: size)
            let map = try generator.subsamples(for: lengthPrefixed(slice, size: size))
            #expect(map == [CENCSubsample(bytesOfClearData: UInt16(size + clear), bytesOfProtectedData: UInt32(slice.count - clear))])
        }
        expectCENCError(.unsupported) { _ = try H264SubsampleGenerator(parameterSets: H264.ParameterSets(), nalUnitLengthSize: 3) }
        var generator = try Self.craftedGenerator()
        let sample = lengthPrefixed(slice)
        for length in 1 ..< sample.count {
            expectCENCError(.truncated) { _ = try generator.subsamples(for: Array(sample[0 ..< length])) }
        }
        expectCENCError(.invalidSubsamples) {
            try CENCSubsample.validate([CENCSubsample(bytesOfClearData: 10, bytesOfProtectedData: 5)], sampleSize: 16)
        }
    }

    @Test func avcConfiguration() throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(StreamSpec(name: "avcc", frames: 4, x264Params: "slices=2", extra: ["-bf", "2"]))
        defer { stream.remove() }
        let sps = stream.nalUnits.filter { $0[0] & 0x1F == 7 }
        let pps = stream.nalUnits.filter { $0[0] & 0x1F == 8 }
        let avcC = AVCConfigurationBox(profileIndication: sps[0][1], profileCompatibility: sps[0][2], levelIndication: sps[0][3],
                                       sequenceParameterSets: sps, pictureParameterSets: pps)
        var generator = try H264SubsampleGenerator(avcConfiguration: avcC)
        #expect(generator.nalUnitLengthSize == 4)
        for sample in stream.samples() {
            let map = try generator.subsamples(for: sample)
            try CENCSubsample.validate(map, sampleSize: sample.count)
            #expect(map.filter { $0.bytesOfProtectedData > 0 }.count == 2)  // two slices a picture
        }
    }

    /// Every sample of every stream: the map covers the sample; each protected range starts just
    /// after a slice header and ends at its NAL unit's end.
    @Test(arguments: StreamSpec.all)
    func realStreams(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        var generator = try H264SubsampleGenerator(parameterSets: H264.ParameterSets(), nalUnitLengthSize: 4)
        var headerGenerator = generator
        for sample in stream.samples() {
            let map = try generator.subsamples(for: sample)
            try CENCSubsample.validate(map, sampleSize: sample.count)
            let headers = try headerGenerator.sliceHeaders(in: sample)
            let slices = try H264.NALUnit.split(sample, lengthSize: 4).filter(\.isVideoSlice)
            let protected = map.filter { $0.bytesOfProtectedData > 0 }
            #expect(protected.count == slices.count)
            var offset = 0
            var ranges: [Range<Int>] = []
            for subsample in map {
                offset += Int(subsample.bytesOfClearData)
                if subsample.bytesOfProtectedData > 0 { ranges.append(offset ..< offset + Int(subsample.bytesOfProtectedData)) }
                offset += Int(subsample.bytesOfProtectedData)
            }
            for (range, (nal, header)) in zip(ranges, zip(slices, headers)) {
                #expect(range.lowerBound == nal.range.lowerBound + header.clearByteCount)
                #expect(range.upperBound == nal.range.upperBound)
            }
        }
    }
}
