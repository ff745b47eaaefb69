import Testing
@testable import MediaDRMCENC

@Suite("picture parameter sets")
struct H264PictureParameterSetTests {
    struct Fields {
        var id: UInt64 = 0, spsID: UInt64 = 0, cabac = true, sliceGroupsMinus1: UInt64 = 0
        var refL0Minus1: UInt64 = 2, refL1Minus1: UInt64 = 0, weighted = true, bipred: UInt64 = 2
        var qp: Int64 = 0, extension8x8: Bool? = nil
    }

    static func crafted(_ f: Fields) -> [UInt8] {
        var w = BitWriter()
        w.ue(f.id); w.ue(f.spsID); w.flag(f.cabac); w.flag(true)
        w.ue(f.sliceGroupsMinus1)
        if f.sliceGroupsMinus1 > 0 { w.ue(0); w.ue(0) }
        w.ue(f.refL0Minus1); w.ue(f.refL1Minus1); w.flag(f.weighted); w.bits(f.bipred, 2)
        w.se(f.qp); w.se(-2); w.se(3)
        w.flag(true); w.flag(false); w.flag(true)
        if let scaling = f.extension8x8 {
            w.flag(true); w.flag(scaling)
            if scaling {
                for index in 0 ..< 8 { w.flag(index == 6); if index == 6 { w.se(-8) } }  // one list, default by next_scale 0
            }
            w.se(-5)
        }
        w.trailing()
        return w.nalUnit(header: 0x68)
    }

    @Test func craftedFields() throws {
        let pps = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(id: 255, spsID: 31)))
        #expect(pps.id == 255 && pps.sequenceParameterSetID == 31)
        #expect(pps.entropyCodingModeFlag && pps.bottomFieldPicOrderInFramePresent)
        #expect(pps.numRefIdxL0DefaultActive == 3 && pps.numRefIdxL1DefaultActive == 1)
        #expect(pps.weightedPredFlag && pps.weightedBipredIDC == 2)
        #expect(pps.chromaQPIndexOffset == 3 && pps.secondChromaQPIndexOffset == 3)
        #expect(pps.deblockingFilterControlPresent && !pps.constrainedIntraPred && pps.redundantPicCountPresent)
        #expect(!pps.transform8x8Mode)
    }

    @Test func extensionWithScalingListsNeedsItsSPS() throws {
        let nal = Self.crafted(Fields(extension8x8: true))
        expectCENCError(.missingParameterSet) { _ = try H264.PictureParameterSet(nalUnit: nal) }
        let sps = try H264.SequenceParameterSet(nalUnit: H264SequenceParameterSetTests.craftedSPS())
        let pps = try H264.PictureParameterSet(nalUnit: nal, sequenceParameterSets: [0: sps])
        #expect(pps.transform8x8Mode && pps.picScalingMatrixPresent)
        #expect(pps.secondChromaQPIndexOffset == -5)
        let plain = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(extension8x8: false)))
        #expect(plain.transform8x8Mode && !plain.picScalingMatrixPresent)
    }

    @Test func hostileValuesAreRefused() {
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(id: 256))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(spsID: 32))) }
        expectCENCError(.unsupported) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(sliceGroupsMinus1: 1))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(sliceGroupsMinus1: 8))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(refL0Minus1: 32))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(refL1Minus1: 1000))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(bipred: 3))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: Self.crafted(Fields(qp: 26))) }
        expectCENCError(.invalidValue) { _ = try H264.PictureParameterSet(nalUnit: [0x68, 0, 0, 0, 0, 0x80]) }
        expectCENCError(.invalidNALUnit) { _ = try H264.PictureParameterSet(nalUnit: [0x67, 0xCE]) }
    }

    @Test(arguments: StreamSpec.all)
    func realStreamsAndTheirPrefixes(_ spec: StreamSpec) throws {
        try #require(haveFFmpeg)
        let stream = try GeneratedStream(spec)
        defer { stream.remove() }
        var sets = H264.ParameterSets()
        for nal in stream.nalUnits where nal[0] & 0x1F == 7 { try sets.update(with: nal) }
        let nal = try #require(stream.nalUnits.first { $0[0] & 0x1F == 8 })
        let pps = try H264.PictureParameterSet(nalUnit: nal, sequenceParameterSets: sets.sequenceParameterSets)
        #expect(pps.entropyCodingModeFlag == !(spec.profile == "baseline" || spec.x264Params?.contains("cabac=0") == true))
        #expect(pps.transform8x8Mode == (spec.profile != "baseline" && spec.profile != "main"))
        if spec.x264Params?.contains("weightp=2") == true { #expect(pps.weightedPredFlag) }
        // x264 sends its custom quantisation matrices in the PPS.
        #expect(pps.picScalingMatrixPresent == (spec.x264Params?.contains("cqm=jvt") == true))
        // Every prefix either fails with a typed error or, where the cut happens to leave a
        // valid shorter PPS (the optional tail is signalled by more_rbsp_data()), agrees on the
        // fields before the cut.
        for length in 0 ..< nal.count {
            do throws(CENCError) {
                let short = try H264.PictureParameterSet(nalUnit: nal[0 ..< length], sequenceParameterSets: sets.sequenceParameterSets)
                #expect(short.id == pps.id && short.entropyCodingModeFlag == pps.entropyCodingModeFlag
                        && short.deblockingFilterControlPresent == pps.deblockingFilterControlPresent)
            } catch {
                #expect(error.code == .truncated || error.code == .invalidValue, "\(error.reason)")
            }
        }
    }
}
