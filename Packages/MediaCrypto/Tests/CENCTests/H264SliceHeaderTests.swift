import Foundation
import Testing
@testable import MediaDRMCENC

/// Escaped bytes of `nal` (its `headerBytes`-byte header included: 1 in H.264, 2 in HEVC) that
/// carry its first `bitCount` RBSP bits (the header's included), counted independently of
/// `H264.RBSP`.
func escapedPrefixLength(of nal: [UInt8], coveringRBSPBits bitCount: Int, headerBytes: Int = 1) -> Int {
    let rbspBytesNeeded = (bitCount + 7) / 8
    var produced = headerBytes, zeros = 0, index = headerBytes
    while produced < rbspBytesNeeded, index < nal.count {
        let byte = nal[index]
        if zeros >= 2, byte == 3 { zeros = 0; index += 1; continue }
        produced += 1
        zeros = byte == 0 ? zeros + 1 : 0
        index += 1
    }
    return index
}

@Suite("H.264 slice headers against ffmpeg's trace_headers")
struct H264SliceHeaderTests {
    @Test(arguments: StreamSpec.all)
    func realStreams(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        let traced = try tracedSlices(of: stream.file)
        var parameterSets = H264.ParameterSets()
        var headers: [H264.SliceHeader] = []
        var sliceNALs: [[UInt8]] = []
        for nal in stream.nalUnits {
            let type = nal[0] & 0x1F
            if type == 1 || type == 5 {
                headers.append(try parameterSets.sliceHeader(of: nal))
                sliceNALs.append(nal)
            } else {
                try parameterSets.update(with: nal)
            }
        }
        #expect(!headers.isEmpty)
        try #require(headers.count == traced.count, "\(headers.count) slices parsed, \(traced.count) traced")
        for (index, (header, reference)) in zip(headers, traced).enumerated() {
            let nal = sliceNALs[index]
            #expect(header.headerBitCount + 8 == reference.endBit, "slice \(index): header ends at \(header.headerBitCount + 8), trace says \(reference.endBit)")
            #expect(header.firstMacroblockInSlice == reference.values["first_mb_in_slice"])
            #expect(header.sliceTypeCode == reference.values["slice_type"])
            #expect(header.picParameterSetID == reference.values["pic_parameter_set_id"])
            #expect(header.frameNum == reference.values["frame_num"])
            #expect(header.sliceQPDelta == reference.values["slice_qp_delta"])
            if let idc = reference.values["disable_deblocking_filter_idc"] { #expect(header.disableDeblockingFilterIDC == idc) }
            if let override = reference.values["num_ref_idx_l0_active_minus1"] { #expect(header.numRefIdxL0Active == override + 1) }
            #expect(header.clearByteCount == escapedPrefixLength(of: nal, coveringRBSPBits: reference.endBit))
            // The clear prefix ends inside the slice: slice data follows the header.
            #expect(header.clearByteCount <= nal.count)
            #expect(header.headerBitCount + 8 < nal.count * 8)
        }
    }

    @Test(arguments: StreamSpec.all)
    func sliceTypesMatchFFprobe(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        let probe = try run(ffprobePath, ["-v", "error", "-show_entries", "frame=pict_type,pkt_pos", "-of", "csv=p=0", stream.file.path])
        let frames = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> (Int, String)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2 else { return nil }
            // The two columns come in the order ffprobe lists them; find the numeric one.
            if let pos = Int(fields[0]) { return (pos, String(fields[1])) }
            if let pos = Int(fields[1]) { return (pos, String(fields[0])) }
            return nil
        }.sorted { $0.0 < $1.0 }.map(\.1)
        var generator = try H264SubsampleGenerator(parameterSets: H264.ParameterSets(), nalUnitLengthSize: 4)
        var ours: [String] = []
        for sample in stream.samples() {
            let headers = try generator.sliceHeaders(in: sample)
            let types = Set(headers.map(\.sliceType))
            #expect(types.count == 1)
            switch headers.first?.sliceType {
            case .i?, .si?: ours.append("I")
            case .p?, .sp?: ours.append("P")
            case .b?: ours.append("B")
            case nil: ours.append("?")
            }
        }
        #expect(ours == frames)
        #expect(ours.count == spec.frames)
    }

    @Test("every prefix of a slice NAL unit fails cleanly or parses the same header")
    func truncatedSlices() throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(StreamSpec(name: "trunc", frames: 6, x264Params: "slices=2:weightp=2", filter: "fade=in:0:5", extra: ["-bf", "2"]))
        defer { stream.remove() }
        var parameterSets = H264.ParameterSets()
        var checked = 0
        for nal in stream.nalUnits {
            let type = nal[0] & 0x1F
            guard type == 1 || type == 5 else { try parameterSets.update(with: nal); continue }
            let full = try parameterSets.sliceHeader(of: nal)
            for length in 0 ..< min(nal.count, full.clearByteCount + 4) {
                do throws(CENCError) {
                    let header = try parameterSets.sliceHeader(of: nal[0 ..< length])
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

    /// A parameter-set pair and a slice header written by hand, for hostile values.
    static func craftedParameterSets(numRefIdxDefaultMinus1: UInt64 = 0, wideFields: Bool = false) throws -> H264.ParameterSets {
        var sps = BitWriter()
        sps.bits(66, 8); sps.bits(0, 8); sps.bits(30, 8)
        sps.ue(0)  // sps id
        if wideFields {
            sps.ue(12)  // 16-bit frame_num
            sps.ue(0); sps.ue(12)  // poc type 0 with a 16-bit pic_order_cnt_lsb
        } else {
            sps.ue(0)  // log2_max_frame_num_minus4
            sps.ue(2)  // poc type 2
        }
        sps.ue(1)  // max_num_ref_frames
        sps.flag(false)
        sps.ue(10); sps.ue(8)  // 11x9 macroblocks
        sps.flag(true)  // frame_mbs_only
        sps.flag(true)  // direct_8x8
        sps.flag(false)  // cropping
        sps.flag(false)  // vui
        sps.trailing()
        var pps = BitWriter()
        pps.ue(0); pps.ue(0)
        pps.flag(false); pps.flag(false)
        pps.ue(0)
        pps.ue(numRefIdxDefaultMinus1); pps.ue(0)
        pps.flag(false); pps.bits(0, 2)
        pps.se(0); pps.se(0); pps.se(0)
        pps.flag(true); pps.flag(false); pps.flag(false)
        pps.trailing()
        return try H264.ParameterSets(sequenceParameterSets: [sps.nalUnit(header: 0x67)],
                                      pictureParameterSets: [pps.nalUnit(header: 0x68)])
    }

    @Test func craftedPSliceHeader() throws {
        let sets = try Self.craftedParameterSets()
        var w = BitWriter()
        w.ue(0); w.ue(5); w.ue(0)  // first_mb, P (5), pps 0
        w.bits(3, 4)  // frame_num
        w.flag(true); w.ue(1)  // override: 2 references
        w.flag(true); w.ue(0); w.ue(0); w.ue(2); w.ue(1); w.ue(3)  // two modifications then end
        w.flag(true); w.ue(1); w.ue(4); w.ue(2); w.ue(3); w.ue(0)  // adaptive marking: 1, 2, then end
        w.se(-3)  // slice_qp_delta
        w.ue(1)  // deblocking off
        let headerBits = w.position
        w.bits(0b1011_0110_1110, 12)
        w.trailing()
        let header = try sets.sliceHeader(of: w.nalUnit(header: 0x41))
        #expect(header.sliceType == .p)
        #expect(header.frameNum == 3)
        #expect(header.numRefIdxL0Active == 2)
        #expect(header.refPicListModificationCountL0 == 2)
        #expect(header.memoryManagementControlOperations == [1, 2])
        #expect(header.sliceQPDelta == -3)
        #expect(header.disableDeblockingFilterIDC == 1)
        #expect(header.headerBitCount == headerBits)
        #expect(header.clearByteCount == 1 + (headerBits + 7) / 8)
    }

    @Test func emulationPreventionInsideTheHeaderIsCounted() throws {
        let sets = try Self.craftedParameterSets(wideFields: true)
        // An IDR slice with a 16-bit frame_num of 0, idr_pic_id 65535 (16 zeros, a one, 16 zeros)
        // and a 16-bit pic_order_cnt_lsb of 0: a zero run of over 32 bits inside the header, so
        // the escaped header carries an emulation prevention byte.
        var w = BitWriter()
        w.ue(3); w.ue(7); w.ue(0); w.bits(0, 16)
        w.ue(65535)
        w.bits(0, 16)
        w.flag(false); w.flag(false)  // dec_ref_pic_marking of an IDR
        w.se(0)
        w.ue(1)
        let headerBits = w.position
        w.bits(0xABCDEF, 24)
        w.trailing()
        let nal = w.nalUnit(header: 0x65)
        let headerBytes = 1 + (headerBits + 7) / 8
        try #require(escapedPrefixLength(of: nal, coveringRBSPBits: headerBits + 8) > headerBytes)
        let header = try sets.sliceHeader(of: nal)
        #expect(header.idrPicID == 65535)
        #expect(header.firstMacroblockInSlice == 3)
        #expect(header.headerBitCount == headerBits)
        #expect(header.clearByteCount == escapedPrefixLength(of: nal, coveringRBSPBits: headerBits + 8))
        #expect(header.clearByteCount > headerBytes)
    }

    @Test func hostileValuesAreRefused() throws {
        let sets = try Self.craftedParameterSets()
        // num_ref_idx_l0_active_minus1 of 32 in a frame slice.
        var w = BitWriter()
        w.ue(0); w.ue(5); w.ue(0); w.bits(0, 4); w.flag(true); w.ue(32)
        w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        // 16 references in a frame slice exceed the limit too (minus1 = 16).
        w = BitWriter()
        w.ue(0); w.ue(5); w.ue(0); w.bits(0, 4); w.flag(true); w.ue(16)
        w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        // A PPS default of 32 references applies to a frame slice without override.
        let wide = try Self.craftedParameterSets(numRefIdxDefaultMinus1: 31)
        w = BitWriter()
        w.ue(0); w.ue(5); w.ue(0); w.bits(0, 4); w.flag(false); w.flag(false); w.se(0); w.ue(1)
        w.trailing()
        expectCENCError(.invalidValue) { _ = try wide.sliceHeader(of: w.nalUnit(header: 0x41)) }
        // pps id 256, and an unknown pps id.
        w = BitWriter(); w.ue(0); w.ue(5); w.ue(256); w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        w = BitWriter(); w.ue(0); w.ue(5); w.ue(3); w.trailing()
        expectCENCError(.missingParameterSet) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        // slice_type 10, first_mb beyond the picture, an IDR P slice.
        w = BitWriter(); w.ue(0); w.ue(10); w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        w = BitWriter(); w.ue(99); w.ue(5); w.ue(0); w.bits(0, 4); w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x41)) }
        w = BitWriter(); w.ue(0); w.ue(5); w.ue(0); w.trailing()
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: w.nalUnit(header: 0x65)) }
        // 32 leading zeros in first_mb_in_slice.
        expectCENCError(.invalidValue) { _ = try sets.sliceHeader(of: [0x41, 0, 0, 0, 0, 0x80]) }
        // Data partitioning and MVC slices are unsupported; an SPS is not a slice.
        expectCENCError(.unsupported) { _ = try sets.sliceHeader(of: [0x42, 0x80]) }
        expectCENCError(.unsupported) { _ = try sets.sliceHeader(of: [0x74, 0x80]) }
        expectCENCError(.invalidNALUnit) { _ = try sets.sliceHeader(of: [0x67, 0x80]) }
        expectCENCError(.truncated) { _ = try sets.sliceHeader(of: [UInt8]()) }
    }
}
