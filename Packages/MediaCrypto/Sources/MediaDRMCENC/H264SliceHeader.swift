extension H264 {
    /// `slice_type` % 5 (Table 7-6).
    public enum SliceType: Int, Sendable {
        case p = 0, b = 1, i = 2, sp = 3, si = 4
    }

    /// A slice header (§7.3.3) and, what `cbcs` needs from it, its exact size: the header ends
    /// after the deblocking filter fields, where `slice_data()` begins.
    public struct SliceHeader: Sendable, Equatable {
        public var nalUnitType: UInt8 = 0
        public var nalRefIDC: UInt8 = 0
        public var firstMacroblockInSlice = 0
        /// `slice_type` as coded, 0 ... 9.
        public var sliceTypeCode = 0
        public var sliceType: SliceType { SliceType(rawValue: sliceTypeCode % 5) ?? .p }
        public var picParameterSetID = 0
        public var colourPlaneID = 0
        public var frameNum = 0
        public var fieldPic = false
        public var bottomField = false
        public var idrPicID = 0
        public var picOrderCountLSB = 0
        public var deltaPicOrderCountBottom = 0
        public var deltaPicOrderCount: (Int, Int) { (deltaPicOrderCount0, deltaPicOrderCount1) }
        var deltaPicOrderCount0 = 0, deltaPicOrderCount1 = 0
        public var redundantPicCount = 0
        public var directSpatialMVPred = false
        public var numRefIdxActiveOverride = false
        /// `num_ref_idx_l0_active_minus1 + 1` (0 for I and SI slices).
        public var numRefIdxL0Active = 0
        /// `num_ref_idx_l1_active_minus1 + 1` (0 unless a B slice).
        public var numRefIdxL1Active = 0
        /// Entries (other than the end marker) of `ref_pic_list_modification()` for each list.
        public var refPicListModificationCountL0 = 0
        public var refPicListModificationCountL1 = 0
        public var hasPredWeightTable = false
        public var lumaLog2WeightDenom = 0
        public var chromaLog2WeightDenom = 0
        public var noOutputOfPriorPics = false
        public var longTermReference = false
        public var adaptiveRefPicMarking = false
        /// `memory_management_control_operation`s before the terminating 0.
        public var memoryManagementControlOperations: [UInt8] = []
        public var cabacInitIDC = 0
        public var sliceQPDelta = 0
        public var spForSwitch = false
        public var sliceQSDelta = 0
        public var disableDeblockingFilterIDC = 0
        public var sliceAlphaC0OffsetDiv2 = 0
        public var sliceBetaOffsetDiv2 = 0

        /// The slice header's size in bits, counted in the RBSP from the first bit after the NAL
        /// unit header.
        public var headerBitCount = 0
        /// The bytes of the escaped NAL unit, its header byte included, that hold the NAL unit
        /// header and the whole slice header: the clear prefix `cbcs` requires (a last partial
        /// header byte counts whole; emulation prevention bytes inside are counted).
        public var clearByteCount = 0

        public static func == (a: SliceHeader, b: SliceHeader) -> Bool {
            a.nalUnitType == b.nalUnitType && a.nalRefIDC == b.nalRefIDC
                && a.firstMacroblockInSlice == b.firstMacroblockInSlice && a.sliceTypeCode == b.sliceTypeCode
                && a.picParameterSetID == b.picParameterSetID && a.colourPlaneID == b.colourPlaneID
                && a.frameNum == b.frameNum && a.fieldPic == b.fieldPic && a.bottomField == b.bottomField
                && a.idrPicID == b.idrPicID && a.picOrderCountLSB == b.picOrderCountLSB
                && a.deltaPicOrderCountBottom == b.deltaPicOrderCountBottom
                && a.deltaPicOrderCount0 == b.deltaPicOrderCount0 && a.deltaPicOrderCount1 == b.deltaPicOrderCount1
                && a.redundantPicCount == b.redundantPicCount && a.directSpatialMVPred == b.directSpatialMVPred
                && a.numRefIdxActiveOverride == b.numRefIdxActiveOverride
                && a.numRefIdxL0Active == b.numRefIdxL0Active && a.numRefIdxL1Active == b.numRefIdxL1Active
                && a.refPicListModificationCountL0 == b.refPicListModificationCountL0
                && a.refPicListModificationCountL1 == b.refPicListModificationCountL1
                && a.hasPredWeightTable == b.hasPredWeightTable && a.lumaLog2WeightDenom == b.lumaLog2WeightDenom
                && a.chromaLog2WeightDenom == b.chromaLog2WeightDenom && a.noOutputOfPriorPics == b.noOutputOfPriorPics
                && a.longTermReference == b.longTermReference && a.adaptiveRefPicMarking == b.adaptiveRefPicMarking
                && a.memoryManagementControlOperations == b.memoryManagementControlOperations
                && a.cabacInitIDC == b.cabacInitIDC && a.sliceQPDelta == b.sliceQPDelta
                && a.spForSwitch == b.spForSwitch && a.sliceQSDelta == b.sliceQSDelta
                && a.disableDeblockingFilterIDC == b.disableDeblockingFilterIDC
                && a.sliceAlphaC0OffsetDiv2 == b.sliceAlphaC0OffsetDiv2 && a.sliceBetaOffsetDiv2 == b.sliceBetaOffsetDiv2
                && a.headerBitCount == b.headerBitCount && a.clearByteCount == b.clearByteCount
        }

        /// Parses the slice header of a coded slice NAL unit (types 1 and 5; header byte
        /// included, emulation prevention present) against the given parameter sets. Data
        /// partitioning (types 2 to 4) and MVC/SVC slices (20, 21) are refused as unsupported.
        public init(nalUnit: some Collection<UInt8>, parameterSets: ParameterSets) throws(CENCError) {
            let nal = ArraySlice(nalUnit)
            guard let header = nal.first else { throw CENCError(.truncated, "empty slice NAL unit") }
            guard header & 0x80 == 0 else { throw CENCError(.invalidNALUnit, "forbidden_zero_bit set in a slice NAL unit") }
            let type = header & 0x1F
            guard type == 1 || type == 5 else {
                if (2 ... 4).contains(type) || type == 20 || type == 21 {
                    throw CENCError(.unsupported, "NAL unit type \(type) slices (data partitioning, MVC/SVC) are not supported")
                }
                throw CENCError(.invalidNALUnit, "NAL unit type \(type) is not a coded slice")
            }
            // A slice header is rarely more than a few dozen bytes; unescape a bounded prefix and
            // fall back to the whole NAL unit only if the header runs past it.
            let payload = nal.dropFirst()
            let firstTry = 512
            var parsed = SliceHeader()
            do throws(CENCError) {
                try parsed.parse(RBSP(escaped: payload, limit: firstTry), header: header, parameterSets: parameterSets)
            } catch {
                guard error.code == .truncated, payload.count > firstTry else { throw error }
                parsed = SliceHeader()
                try parsed.parse(RBSP(escaped: payload), header: header, parameterSets: parameterSets)
            }
            self = parsed
        }

        init() {}

        mutating func parse(_ rbsp: RBSP, header: UInt8, parameterSets: ParameterSets) throws(CENCError) {
            var r = BitReader(rbsp.bytes)
            nalUnitType = header & 0x1F
            nalRefIDC = (header >> 5) & 0x03
            let idr = nalUnitType == 5
            firstMacroblockInSlice = Int(try r.readUE())
            sliceTypeCode = try r.readUE("slice_type", in: 0 ... 9)
            picParameterSetID = try r.readUE("pic_parameter_set_id", in: 0 ... 255)
            guard let pps = parameterSets.pictureParameterSets[picParameterSetID] else {
                throw CENCError(.missingParameterSet, "slice refers to unknown PPS \(picParameterSetID)")
            }
            guard let sps = parameterSets.sequenceParameterSets[pps.sequenceParameterSetID] else {
                throw CENCError(.missingParameterSet, "PPS \(pps.id) refers to unknown SPS \(pps.sequenceParameterSetID)")
            }
            let type = SliceType(rawValue: sliceTypeCode % 5) ?? .p
            if idr, type != .i, type != .si {
                throw CENCError(.invalidValue, "an IDR slice has slice_type \(sliceTypeCode)")
            }
            if sps.separateColourPlane { colourPlaneID = Int(try r.readBits(2)) }
            frameNum = Int(try r.readBits(sps.log2MaxFrameNum))
            if !sps.frameMacroblocksOnly {
                fieldPic = try r.readFlag()
                if fieldPic { bottomField = try r.readFlag() }
            }
            let picSizeInMacroblocks = sps.frameSizeInMacroblocks / (fieldPic ? 2 : 1)
            guard firstMacroblockInSlice < picSizeInMacroblocks else {
                throw CENCError(.invalidValue, "first_mb_in_slice \(firstMacroblockInSlice) is beyond the \(picSizeInMacroblocks) macroblocks of the picture")
            }
            if idr { idrPicID = try r.readUE("idr_pic_id", in: 0 ... 65535) }
            if sps.picOrderCountType == 0 {
                picOrderCountLSB = Int(try r.readBits(sps.log2MaxPicOrderCountLSB))
                if pps.bottomFieldPicOrderInFramePresent, !fieldPic { deltaPicOrderCountBottom = Int(try r.readSE()) }
            }
            if sps.picOrderCountType == 1, !sps.deltaPicOrderAlwaysZero {
                deltaPicOrderCount0 = Int(try r.readSE())
                if pps.bottomFieldPicOrderInFramePresent, !fieldPic { deltaPicOrderCount1 = Int(try r.readSE()) }
            }
            if pps.redundantPicCountPresent { redundantPicCount = try r.readUE("redundant_pic_cnt", in: 0 ... 127) }
            if type == .b { directSpatialMVPred = try r.readFlag() }
            let maxRefIdx = fieldPic ? 32 : 16
            if type == .p || type == .sp || type == .b {
                numRefIdxL0Active = pps.numRefIdxL0DefaultActive
                if type == .b { numRefIdxL1Active = pps.numRefIdxL1DefaultActive }
                numRefIdxActiveOverride = try r.readFlag()
                if numRefIdxActiveOverride {
                    numRefIdxL0Active = try r.readUE("num_ref_idx_l0_active_minus1", in: 0 ... maxRefIdx - 1) + 1
                    if type == .b { numRefIdxL1Active = try r.readUE("num_ref_idx_l1_active_minus1", in: 0 ... maxRefIdx - 1) + 1 }
                }
                guard numRefIdxL0Active <= maxRefIdx, numRefIdxL1Active <= maxRefIdx else {
                    throw CENCError(.invalidValue, "the inferred num_ref_idx_active exceeds \(maxRefIdx)")
                }
            }
            // ref_pic_list_modification() (§7.3.3.1); types 20 and 21 were refused above.
            if type != .i, type != .si {
                refPicListModificationCountL0 = try Self.readRefPicListModification(&r, limit: numRefIdxL0Active)
            }
            if type == .b {
                refPicListModificationCountL1 = try Self.readRefPicListModification(&r, limit: numRefIdxL1Active)
            }
            if (pps.weightedPredFlag && (type == .p || type == .sp)) || (pps.weightedBipredIDC == 1 && type == .b) {
                hasPredWeightTable = true
                try readPredWeightTable(&r, sps: sps, type: type)
            }
            if nalRefIDC != 0 { try readDecRefPicMarking(&r, idr: idr) }
            if pps.entropyCodingModeFlag, type != .i, type != .si {
                cabacInitIDC = try r.readUE("cabac_init_idc", in: 0 ... 2)
            }
            let qpBDOffset = 6 * (sps.bitDepthLuma - 8)
            let sliceQP = 26 + pps.picInitQPMinus26
            sliceQPDelta = try r.readSE("slice_qp_delta", in: (-qpBDOffset - sliceQP) ... (51 - sliceQP))
            if type == .sp || type == .si {
                if type == .sp { spForSwitch = try r.readFlag() }
                let sliceQS = 26 + pps.picInitQSMinus26
                sliceQSDelta = try r.readSE("slice_qs_delta", in: (0 - sliceQS) ... (51 - sliceQS))
            }
            if pps.deblockingFilterControlPresent {
                disableDeblockingFilterIDC = try r.readUE("disable_deblocking_filter_idc", in: 0 ... 2)
                if disableDeblockingFilterIDC != 1 {
                    sliceAlphaC0OffsetDiv2 = try r.readSE("slice_alpha_c0_offset_div2", in: -6 ... 6)
                    sliceBetaOffsetDiv2 = try r.readSE("slice_beta_offset_div2", in: -6 ... 6)
                }
            }
            // num_slice_groups > 1 (slice_group_change_cycle) cannot occur: such a PPS is refused.
            headerBitCount = r.bitPosition
            clearByteCount = 1 + rbsp.escapedByteCount(coveringBits: headerBitCount)
        }

        /// One list of `ref_pic_list_modification()`; returns the count of modifications.
        static func readRefPicListModification(_ r: inout BitReader, limit: Int) throws(CENCError) -> Int {
            guard try r.readFlag() else { return 0 }
            var count = 0
            while true {
                let idc = try r.readUE("modification_of_pic_nums_idc", in: 0 ... 3)
                if idc == 3 { return count }
                count += 1
                guard count <= limit else {
                    throw CENCError(.invalidValue, "more reference list modifications than the \(limit) active references")
                }
                _ = try r.readUE()  // abs_diff_pic_num_minus1 or long_term_pic_num
            }
        }

        /// `pred_weight_table()` (§7.3.3.2): its size depends on every flag it holds.
        mutating func readPredWeightTable(_ r: inout BitReader, sps: SequenceParameterSet, type: SliceType) throws(CENCError) {
            lumaLog2WeightDenom = try r.readUE("luma_log2_weight_denom", in: 0 ... 7)
            if sps.chromaArrayType != 0 {
                chromaLog2WeightDenom = try r.readUE("chroma_log2_weight_denom", in: 0 ... 7)
            }
            let lumaOffsets = -(1 << (sps.bitDepthLuma - 1)) ... (1 << (sps.bitDepthLuma - 1)) - 1
            let chromaOffsets = -(1 << (sps.bitDepthChroma - 1)) ... (1 << (sps.bitDepthChroma - 1)) - 1
            for list in 0 ..< (type == .b ? 2 : 1) {
                let count = list == 0 ? numRefIdxL0Active : numRefIdxL1Active
                for _ in 0 ..< count {
                    if try r.readFlag() {
                        _ = try r.readSE("luma_weight", in: -128 ... 127)
                        _ = try r.readSE("luma_offset", in: lumaOffsets)
                    }
                    if sps.chromaArrayType != 0, try r.readFlag() {
                        for _ in 0 ..< 2 {
                            _ = try r.readSE("chroma_weight", in: -128 ... 127)
                            _ = try r.readSE("chroma_offset", in: chromaOffsets)
                        }
                    }
                }
            }
        }

        /// `dec_ref_pic_marking()` (§7.3.3.3).
        mutating func readDecRefPicMarking(_ r: inout BitReader, idr: Bool) throws(CENCError) {
            if idr {
                noOutputOfPriorPics = try r.readFlag()
                longTermReference = try r.readFlag()
                return
            }
            adaptiveRefPicMarking = try r.readFlag()
            guard adaptiveRefPicMarking else { return }
            while true {
                let operation = try r.readUE("memory_management_control_operation", in: 0 ... 6)
                if operation == 0 { return }
                // Each operation takes at least one bit, so the RBSP bounds the loop; this bounds memory.
                guard memoryManagementControlOperations.count < 256 else {
                    throw CENCError(.invalidValue, "more than 256 memory management control operations")
                }
                memoryManagementControlOperations.append(UInt8(operation))
                if operation == 1 || operation == 3 { _ = try r.readUE() }  // difference_of_pic_nums_minus1
                if operation == 2 { _ = try r.readUE() }  // long_term_pic_num
                if operation == 3 || operation == 6 { _ = try r.readUE("long_term_frame_idx", in: 0 ... 31) }
                if operation == 4 { _ = try r.readUE("max_long_term_frame_idx_plus1", in: 0 ... 32) }
            }
        }
    }
}
