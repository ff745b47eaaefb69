import Foundation
import MediaDRMMP4
import Testing
@testable import MediaDRMCENC

/// An HEVC stream for the tests: what ffmpeg's libx265 is asked to make.
struct HEVCStreamSpec: Sendable, CustomStringConvertible {
    var name: String
    var size = "130x74"
    var frames = 16
    var pixelFormat = "yuv420p"
    var x265Params: String
    var description: String { name }

    static let all: [HEVCStreamSpec] = [
        HEVCStreamSpec(name: "bframes-2slices-wpp", x265Params: "bframes=3:slices=2"),
        HEVCStreamSpec(name: "weighted-prediction", x265Params: "weightp=1:weightb=1:bframes=3"),
        HEVCStreamSpec(name: "no-deblock-no-sao-no-wpp", x265Params: "no-deblock=1:no-sao=1:no-wpp=1:bframes=2"),
        HEVCStreamSpec(name: "ref4-pyramid-open-gop-in-band", x265Params: "ref=4:bframes=4:b-pyramid=1:repeat-headers=1:keyint=8:open-gop=1"),
        HEVCStreamSpec(name: "lossless", frames: 6, x265Params: "lossless=1"),
        HEVCStreamSpec(name: "ref-list-length-and-qp-in-pps", x265Params: "opt-ref-list-length-pps=1:opt-qp-pps=1:ref=3:bframes=2"),
        HEVCStreamSpec(name: "deblock-offsets-4slices", size: "352x288", frames: 10, x265Params: "deblock=-2,2:signhide=0:bframes=2:slices=4"),
        HEVCStreamSpec(name: "gray", size: "176x144", frames: 10, pixelFormat: "gray", x265Params: "bframes=2:weightp=1"),
        HEVCStreamSpec(name: "main444-10", size: "176x144", frames: 10, pixelFormat: "yuv444p10le", x265Params: "bframes=2:weightp=1"),
    ]
}

/// A generated raw HEVC stream: its file and NAL units in decode order.
struct GeneratedHEVCStream {
    var directory: URL
    var file: URL
    var nalUnits: [[UInt8]]

    init(_ spec: HEVCStreamSpec) throws {
        directory = try temporaryDirectory()
        file = directory.appendingPathComponent("stream.hevc")
        let result = try run(ffmpegPath, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "testsrc2=size=\(spec.size):rate=25", "-vf", "fade=in:0:10", "-frames:v", String(spec.frames),
                                          "-pix_fmt", spec.pixelFormat, "-c:v", "libx265", "-preset", "ultrafast",
                                          "-x265-params", "log-level=error:" + spec.x265Params, "-f", "hevc", file.path])
        guard result.status == 0 else {
            throw TestFailure("ffmpeg failed for \(spec.name): \(String(decoding: result.stderr, as: UTF8.self))")
        }
        nalUnits = annexBNALUnits(Array(try Data(contentsOf: file)))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    static func isVCL(_ nal: [UInt8]) -> Bool { (nal[0] >> 1) & 0x3F < 32 }

    /// Access units in decode order as 4-byte length-prefixed samples.
    func samples() -> [[UInt8]] {
        // first_slice_segment_in_pic_flag is the first bit after the two-byte NAL unit header.
        accessUnits(nalUnits, isSlice: Self.isVCL, startsPicture: { $0.count > 2 && $0[2] & 0x80 != 0 })
    }
}

@Suite("HEVC slice segment headers against ffmpeg's trace_headers and crafted syntax")
struct HEVCSliceSegmentHeaderTests {
    /// libx265 streams: every slice segment header ends where ffmpeg's CBS parser (an independent
    /// reading of ITU-T H.265) says, with the same field values, and the clear prefix counts the
    /// escaped bytes that carry it.
    @Test(arguments: HEVCStreamSpec.all)
    func realStreams(_ spec: HEVCStreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedHEVCStream(spec)
        defer { stream.remove() }
        let traced = try tracedSlices(of: stream.file, heading: "Slice Segment Header")
        var parameterSets = HEVC.ParameterSets()
        var headers: [HEVC.SliceSegmentHeader] = []
        var sliceNALs: [[UInt8]] = []
        for nal in stream.nalUnits {
            if GeneratedHEVCStream.isVCL(nal) {
                headers.append(try parameterSets.sliceSegmentHeader(of: nal))
                sliceNALs.append(nal)
            } else {
                try parameterSets.update(with: nal)
            }
        }
        #expect(headers.count >= spec.frames)
        try #require(headers.count == traced.count, "\(headers.count) slice segments parsed, \(traced.count) traced")
        for (index, (header, reference)) in zip(headers, traced).enumerated() {
            let nal = sliceNALs[index]
            #expect(header.headerBitCount + 16 == reference.endBit, "slice \(index): header ends at \(header.headerBitCount + 16), trace says \(reference.endBit)")
            #expect(header.headerBitCount % 8 == 0)
            #expect(header.sliceType?.rawValue == reference.values["slice_type"])
            #expect(header.picParameterSetID == reference.values["slice_pic_parameter_set_id"])
            #expect(header.sliceSegmentAddress == reference.values["slice_segment_address"] ?? 0)
            #expect(header.sliceQPDelta == reference.values["slice_qp_delta"])
            #expect(header.numEntryPointOffsets == reference.values["num_entry_point_offsets"] ?? 0)
            #expect(header.picOrderCountLSB == reference.values["slice_pic_order_cnt_lsb"] ?? 0)
            if let override = reference.values["num_ref_idx_l0_active_minus1"] { #expect(header.numRefIdxL0Active == override + 1) }
            #expect(header.clearByteCount == escapedPrefixLength(of: nal, coveringRBSPBits: reference.endBit, headerBytes: 2))
            #expect(header.clearByteCount < nal.count, "slice data follows the header")
        }
    }

    /// The subsample map of every sample: non-VCL NAL units clear, each VCL NAL unit clear
    /// through its length prefix and slice segment header, the rest protected; the map covers
    /// the sample.
    @Test func subsampleMapsOfRealSamples() throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedHEVCStream(HEVCStreamSpec.all[3])
        defer { stream.remove() }
        var generator = try HEVCSubsampleGenerator(parameterSets: HEVC.ParameterSets(), nalUnitLengthSize: 4)
        var headerReader = try HEVCSubsampleGenerator(parameterSets: HEVC.ParameterSets(), nalUnitLengthSize: 4)
        for sample in stream.samples() {
            let map = try generator.subsamples(for: sample)
            try CENCSubsample.validate(map, sampleSize: sample.count)
            let units = try HEVC.NALUnit.split(sample, lengthSize: 4)
            let headers = try headerReader.sliceSegmentHeaders(in: sample)
            let slices = units.filter(\.isVideoCodingLayer)
            #expect(map.count == slices.count, "one protected range per slice segment")
            #expect(map.map(\.bytesOfProtectedData) == zip(slices, headers).map { UInt32($0.range.count - $1.clearByteCount) })
            // The clear bytes before each protected range: the NAL units since the last one, then this one's header.
            var before = 0
            var expectedClear: [UInt16] = []
            for unit in units {
                if unit.isVideoCodingLayer {
                    expectedClear.append(UInt16(before + 4 + headers[expectedClear.count].clearByteCount))
                    before = 0
                } else {
                    before += 4 + unit.range.count
                }
            }
            #expect(map.map(\.bytesOfClearData) == expectedClear)
        }
    }

    /// The map the packager asks for follows the sample entry: `hvc1` and `hev1` with `hvcC` give
    /// the HEVC map (the same as `HEVCSubsampleGenerator`'s), `avc1` without `avcC` and other
    /// formats are refused.
    @Test func videoSubsampleGeneratorFollowsTheSampleEntry() throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedHEVCStream(HEVCStreamSpec.all[0])
        defer { stream.remove() }
        let sets = stream.nalUnits.filter { (32 ... 34).contains(($0[0] >> 1) & 0x3F) }
        let samples = stream.samples().map { sample in
            // The parameter sets travel in hvcC, not in the samples.
            (try? HEVC.NALUnit.split(sample, lengthSize: 4).filter { !(32 ... 34).contains($0.typeCode) }
                .flatMap { lengthPrefixed(Array(sample[$0.range])) }) ?? []
        }
        for format: FourCC in ["hvc1", "hev1"] {
            let entry = VisualSampleEntry(format: format, width: 130, height: 74, children: [HEVCTests.configuration(sets: sets)])
            var chosen = try VideoSubsampleGenerator(sampleEntry: entry)
            guard case .hevc = chosen else { Issue.record("\(format) gave \(chosen)"); continue }
            var direct = try HEVCSubsampleGenerator(configuration: HEVCTests.configuration(sets: sets))
            for sample in samples { #expect(try chosen.subsamples(for: sample) == (try direct.subsamples(for: sample))) }
        }
        expectCENCError(.invalidValue) { _ = try VideoSubsampleGenerator(sampleEntry: VisualSampleEntry(format: "avc1", width: 16, height: 16, children: [])) }
        expectCENCError(.invalidValue) { _ = try VideoSubsampleGenerator(sampleEntry: VisualSampleEntry(format: "hev1", width: 16, height: 16, children: [])) }
        expectCENCError(.unsupported) { _ = try VideoSubsampleGenerator(sampleEntry: VisualSampleEntry(format: "vp09", width: 16, height: 16, children: [])) }
    }

    @Test("every prefix of a slice segment NAL unit fails cleanly or parses the same header")
    func truncatedSliceSegments() throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedHEVCStream(HEVCStreamSpec.all[1])
        defer { stream.remove() }
        var parameterSets = HEVC.ParameterSets()
        var checked = 0
        for nal in stream.nalUnits {
            guard GeneratedHEVCStream.isVCL(nal) else { try parameterSets.update(with: nal); continue }
            let full = try parameterSets.sliceSegmentHeader(of: nal)
            for length in 0 ..< min(nal.count, full.clearByteCount + 4) {
                do throws(CENCError) {
                    let header = try parameterSets.sliceSegmentHeader(of: nal[0 ..< length])
                    #expect(header == full, "prefix \(length) parsed differently")
                    #expect(length >= full.clearByteCount)
                } catch {
                    #expect(error.code == .truncated, "\(error.reason)")
                    #expect(length < full.clearByteCount)
                }
            }
            checked += 1
        }
        #expect(checked > 0)
    }

    // MARK: Crafted syntax: what libx265 never writes

    /// The SPS of the crafted tests: 64x64 in 16x16 CTBs (16, so a 4-bit slice_segment_address),
    /// 8-bit POC LSBs, SAO, two short-term sets (the second predicted from the first), two
    /// long-term pictures, temporal MVP.
    static func craftedSPS(profileIDC: UInt64 = 1) -> [UInt8] {
        var w = BitWriter()
        w.bits(0, 4); w.bits(0, 3); w.flag(true)  // vps id, max_sub_layers_minus1, nesting
        w.bits(0, 2); w.flag(false); w.bits(profileIDC, 5); w.bits(0x6000_0000, 32); w.bits(0, 48); w.bits(60, 8)
        w.ue(0); w.ue(1); w.ue(64); w.ue(64)  // sps id, 4:2:0, 64x64
        w.flag(false); w.ue(0); w.ue(0); w.ue(4)  // conformance window, bit depths, 8-bit POC LSB
        w.flag(true); w.ue(4); w.ue(2); w.ue(0)  // sub-layer ordering info
        w.ue(0); w.ue(1); w.ue(0); w.ue(2); w.ue(1); w.ue(1)  // CB 8..16, TB 4..16, hierarchy depths
        w.flag(false); w.flag(false); w.flag(true); w.flag(false)  // scaling lists, AMP, SAO, PCM
        w.ue(2)  // num_short_term_ref_pic_sets
        // Set 0: S0 = -1 (used), -3 (unused); S1 = +2 (used).
        w.ue(2); w.ue(1); w.ue(0); w.flag(true); w.ue(1); w.flag(false); w.ue(1); w.flag(true)
        // Set 1, predicted from set 0 with deltaRps -1: used, (unused, use_delta), used, (unused, not used).
        w.flag(true); w.flag(true); w.ue(0)
        w.flag(true); w.flag(false); w.flag(true); w.flag(true); w.flag(false); w.flag(false)
        w.flag(true); w.ue(2); w.bits(5, 8); w.flag(true); w.bits(9, 8); w.flag(false)  // long-term pictures
        w.flag(true); w.flag(false)  // temporal MVP, strong intra smoothing
        w.flag(false); w.flag(false)  // VUI, extensions
        w.trailing()
        return [0x42] + w.nalUnit(header: 0x01)
    }

    /// The PPS: dependent slice segments, output flag, two extra header bits, CABAC init, two
    /// default L0 references, slice chroma QP offsets, weighted P prediction, 2x2 tiles,
    /// deblocking override, lists modification, header extension, and the range extension's
    /// chroma QP offset list.
    static func craftedPPS(multilayer: Bool = false) -> [UInt8] {
        var w = BitWriter()
        w.ue(0); w.ue(0); w.flag(true); w.flag(true); w.bits(2, 3); w.flag(false); w.flag(true)
        w.ue(1); w.ue(0); w.se(0); w.flag(false); w.flag(true)  // default refs, init_qp, transform skip
        w.flag(false); w.se(0); w.se(0); w.flag(true); w.flag(true); w.flag(false); w.flag(false)
        w.flag(true); w.flag(false); w.ue(1); w.ue(1); w.flag(false); w.ue(0); w.ue(0); w.flag(true)  // tiles
        w.flag(true)  // loop filter across slices
        w.flag(true); w.flag(true); w.flag(false); w.se(0); w.se(0)  // deblocking control
        w.flag(false); w.flag(true); w.ue(0); w.flag(true)  // scaling, lists modification, merge level, header extension
        w.flag(true); w.flag(true); w.flag(multilayer); w.flag(false); w.flag(false); w.bits(0, 4)  // extensions
        w.ue(0); w.flag(false); w.flag(true); w.ue(0); w.ue(0); w.se(1); w.se(-1); w.ue(0); w.ue(0)  // range extension
        w.trailing()
        return [0x44] + w.nalUnit(header: 0x01)
    }

    static func craftedParameterSets() throws -> HEVC.ParameterSets {
        var sets = HEVC.ParameterSets()
        try sets.update(with: craftedSPS())
        try sets.update(with: craftedPPS())
        return sets
    }

    /// Slice data after a header: bytes that are not the header's.
    static func sliceData(_ w: inout BitWriter) { for _ in 0 ..< 24 { w.bits(0xA5, 8) } }

    /// The set predicted in the SPS, derived with equations 7-61 and 7-62.
    @Test func interPredictedReferencePictureSetInTheSPS() throws {
        let sps = try HEVC.SequenceParameterSet(nalUnit: Self.craftedSPS())
        #expect(sps.shortTermReferencePictureSets.count == 2)
        let first = sps.shortTermReferencePictureSets[0]
        #expect(first.deltaPictureOrderCountS0 == [-1, -3] && first.usedByCurrentPictureS0 == [true, false])
        #expect(first.deltaPictureOrderCountS1 == [2] && first.usedByCurrentPictureS1 == [true])
        let predicted = sps.shortTermReferencePictureSets[1]
        #expect(predicted.deltaPictureOrderCountS0 == [-2, -4] && predicted.usedByCurrentPictureS0 == [true, false])
        #expect(predicted.deltaPictureOrderCountS1 == [1] && predicted.usedByCurrentPictureS1 == [true])
        #expect(sps.longTermReferencePicturesUsedByCurrentPicture == [true, false])
        #expect(sps.pictureSizeInCodingTreeBlocks == 16 && sps.log2MaxPicOrderCountLSB == 8)
    }

    /// A P slice segment using nearly every optional field: the SPS's predicted set, long-term
    /// pictures from the SPS and coded, lists modification over NumPicTotalCurr 4, a collocated
    /// reference, a weight table with chroma, QP and deblocking overrides, entry points and a
    /// header extension whose bytes force an emulation prevention byte inside the header.
    @Test func craftedPSliceSegment() throws {
        var w = BitWriter()
        w.flag(false); w.ue(0); w.flag(false); w.bits(5, 4); w.bits(2, 2)  // not first, PPS 0, independent, address 5, reserved
        w.ue(1); w.flag(true); w.bits(17, 8)  // P, pic_output_flag, POC LSB
        w.flag(true); w.bits(1, 1)  // the SPS's set 1
        w.ue(1); w.ue(1)  // one long-term picture from the SPS, one coded
        w.bits(0, 1); w.flag(false)  // lt_idx_sps 0 (used), no MSB
        w.bits(3, 8); w.flag(true); w.flag(true); w.ue(2)  // coded: POC LSB 3, used, MSB cycle 2
        w.flag(true); w.flag(true); w.flag(false)  // temporal MVP, SAO luma, SAO chroma
        w.flag(true); w.ue(2)  // three L0 references
        w.flag(true); w.bits(3, 2); w.bits(0, 2); w.bits(2, 2)  // list_entry_l0 over NumPicTotalCurr 4
        w.flag(true); w.ue(2)  // cabac_init_flag, collocated_ref_idx
        w.ue(6); w.se(-1); w.flag(true); w.flag(false); w.flag(true); w.flag(false); w.flag(true); w.flag(false)  // weight flags
        w.se(3); w.se(-5); w.se(1); w.se(-20); w.se(1); w.se(-20); w.se(0); w.se(7)  // weights and offsets
        w.ue(2); w.se(-3); w.se(2); w.se(-2); w.flag(true)  // merge candidates, QP delta, chroma offsets, cu_chroma_qp_offset
        w.flag(true); w.flag(false); w.se(1); w.se(-1); w.flag(true)  // deblocking override, loop filter across slices
        w.ue(2); w.ue(4); w.bits(17, 5); w.bits(30, 5)  // two entry points of five bits
        w.ue(4); w.bits(0, 32)  // extension: four zero bytes, so the NAL unit escapes them inside the header
        w.flag(true); while w.position % 8 != 0 { w.flag(false) }
        let headerBits = w.position
        Self.sliceData(&w)
        let nal = [0x02] + w.nalUnit(header: 0x01)
        let header = try HEVC.SliceSegmentHeader(nalUnit: nal, parameterSets: try Self.craftedParameterSets())
        #expect(header.sliceType == .p && header.sliceSegmentAddress == 5 && header.picOrderCountLSB == 17)
        #expect(header.shortTermReferencePictureSetIndex == 1 && header.longTermPictureCount == 2)
        #expect(header.numPicTotalCurrent == 4)
        #expect(header.numRefIdxL0Active == 3 && header.hasPredWeightTable && header.maxNumMergeCandidates == 3)
        #expect(header.sliceQPDelta == -3 && header.numEntryPointOffsets == 2 && header.extensionLength == 4)
        #expect(header.headerBitCount == headerBits)
        let clear = escapedPrefixLength(of: nal, coveringRBSPBits: headerBits + 16, headerBytes: 2)
        #expect(clear > 2 + headerBits / 8, "emulation prevention bytes inside the header")
        #expect(header.clearByteCount == clear)

        // A dependent slice segment after it: only the entry points and extension follow the address.
        var d = BitWriter()
        d.flag(false); d.ue(0); d.flag(true); d.bits(9, 4); d.ue(0); d.ue(0)
        d.flag(true); while d.position % 8 != 0 { d.flag(false) }
        let dependentBits = d.position
        Self.sliceData(&d)
        let dependent = try HEVC.SliceSegmentHeader(nalUnit: [0x02] + d.nalUnit(header: 0x01), parameterSets: try Self.craftedParameterSets())
        #expect(dependent.dependentSliceSegment && dependent.sliceType == nil && dependent.headerBitCount == dependentBits)
    }

    /// A B slice segment whose own st_ref_pic_set is predicted (delta_idx_minus1 1: from the
    /// SPS's set 0) with deltaRps +1, and an L1 list modification.
    @Test func craftedBSliceWithPredictedSetInTheHeader() throws {
        var w = BitWriter()
        w.flag(true); w.ue(0); w.bits(0, 2); w.ue(0); w.flag(true); w.bits(40, 8)  // first, PPS 0, reserved, B, output, POC
        w.flag(false); w.flag(true); w.ue(1); w.flag(false); w.ue(0)  // own set: predicted, delta_idx_minus1 1, +1
        for _ in 0 ..< 4 { w.flag(true) }  // every picture used
        w.ue(0); w.ue(0); w.flag(false)  // no long-term pictures, temporal MVP off
        w.flag(false); w.flag(false)  // SAO
        w.flag(false)  // default reference counts: L0 2, L1 1
        w.flag(false); w.flag(true); w.bits(2, 2)  // no L0 modification; L1 entry over NumPicTotalCurr 3
        w.flag(true); w.flag(false)  // mvd_l1_zero, cabac_init
        w.ue(0); w.se(0); w.se(0); w.se(0); w.flag(false)  // merge, QP, chroma offsets, cu_chroma_qp_offset
        w.flag(false); w.flag(false)  // no deblocking override; loop filter across slices (deblocking on)
        w.ue(0); w.ue(0)  // entry points, extension
        w.flag(true); while w.position % 8 != 0 { w.flag(false) }
        let headerBits = w.position
        Self.sliceData(&w)
        let header = try HEVC.SliceSegmentHeader(nalUnit: [0x02] + w.nalUnit(header: 0x01), parameterSets: try Self.craftedParameterSets())
        #expect(header.sliceType == .b && header.shortTermReferencePictureSetIndex == nil)
        #expect(header.shortTermReferencePictureSet.deltaPictureOrderCountS0 == [-2])
        #expect(header.shortTermReferencePictureSet.deltaPictureOrderCountS1 == [1, 3])
        #expect(header.numPicTotalCurrent == 3 && header.numRefIdxL0Active == 2 && header.numRefIdxL1Active == 1)
        #expect(header.headerBitCount == headerBits)
    }

    /// Hostile and unsupported input gets a typed error naming the problem, never a trap.
    @Test func refusals() throws {
        let sets = try Self.craftedParameterSets()
        func slice(_ header: [UInt8], _ body: (inout BitWriter) -> Void) -> [UInt8] {
            var w = BitWriter()
            body(&w)
            Self.sliceData(&w)
            return [header[0]] + w.nalUnit(header: header[1])
        }
        let minimalIDR: (inout BitWriter) -> Void = { w in
            w.flag(true); w.flag(false); w.ue(0); w.bits(0, 2); w.ue(2); w.flag(true)
            w.flag(false); w.flag(false); w.se(0); w.se(0); w.se(0); w.flag(false); w.flag(false); w.flag(false)
            w.ue(0); w.ue(0); w.flag(true); while w.position % 8 != 0 { w.flag(false) }
        }
        _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1, 0x01], minimalIDR), parameterSets: sets)
        expectCENCError(.unsupported) { _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1 | 1, 0x01], minimalIDR), parameterSets: sets) }
        expectCENCError(.invalidNALUnit) { _ = try HEVC.SliceSegmentHeader(nalUnit: slice([34 << 1, 0x01], minimalIDR), parameterSets: sets) }
        expectCENCError(.missingParameterSet) { _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1, 0x01], minimalIDR), parameterSets: HEVC.ParameterSets()) }
        // An IDR slice that says P.
        expectCENCError(.invalidValue) {
            _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1, 0x01]) { w in w.flag(true); w.flag(false); w.ue(0); w.bits(0, 2); w.ue(1) }, parameterSets: sets)
        }
        // byte_alignment() that starts with a zero bit.
        expectCENCError(.invalidValue) {
            _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1, 0x01]) { w in
                w.flag(true); w.flag(false); w.ue(0); w.bits(0, 2); w.ue(2); w.flag(true)
                w.flag(false); w.flag(false); w.se(0); w.se(0); w.se(0); w.flag(false); w.flag(false); w.flag(false)
                w.ue(0); w.ue(0); w.flag(false); w.bits(0xFF, 8)
            }, parameterSets: sets)
        }
        // Screen content coding profiles and PPS multilayer extensions are refused, not misread.
        var scc = HEVC.ParameterSets()
        try scc.update(with: Self.craftedSPS(profileIDC: 9))
        try scc.update(with: Self.craftedPPS())
        expectCENCError(.unsupported) { _ = try HEVC.SliceSegmentHeader(nalUnit: slice([19 << 1, 0x01], minimalIDR), parameterSets: scc) }
        var multilayer = HEVC.ParameterSets()
        try multilayer.update(with: Self.craftedSPS())
        expectCENCError(.unsupported) { try multilayer.update(with: Self.craftedPPS(multilayer: true)) }
        // Every truncation of the parameter sets fails with a typed error.
        for (name, nal) in [("SPS", Self.craftedSPS()), ("PPS", Self.craftedPPS())] {
            // The last two bytes may hold only fields after those read (the VUI flag on) and the trailing bits.
            for length in 2 ..< nal.count - 2 {
                var partial = HEVC.ParameterSets()
                if name == "PPS" { try partial.update(with: Self.craftedSPS()) }
                #expect(throws: CENCError.self, "\(name) prefix \(length)") { try partial.update(with: nal.prefix(length)) }
            }
        }
    }
}
