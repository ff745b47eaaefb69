extension HEVC {
    /// `slice_type` (Table 7-7).
    public enum SliceType: Int, Sendable {
        case b = 0, p = 1, i = 2
    }

    /// A slice segment header (§7.3.6.1, with `st_ref_pic_set()` §7.3.7,
    /// `ref_pic_lists_modification()` §7.3.6.2 and `pred_weight_table()` §7.3.6.3) and, what
    /// `cbcs` needs from it, its exact size: the header ends with `byte_alignment()`, where
    /// `slice_segment_data()` begins.
    ///
    /// Refused as unsupported: slices of a layer other than the base layer (`nuh_layer_id` > 0,
    /// whose headers the multilayer extensions change) and the screen content coding profiles
    /// (their `use_integer_mv_flag` and ACT QP offsets depend on SPS and PPS extensions not read).
    public struct SliceSegmentHeader: Sendable, Equatable {
        public var nalUnitType: UInt8 = 0
        public var firstSliceSegmentInPicture = false
        public var noOutputOfPriorPictures = false
        public var picParameterSetID = 0
        public var dependentSliceSegment = false
        public var sliceSegmentAddress = 0
        /// Absent (nil) in a dependent slice segment, which takes its slice's.
        public var sliceType: SliceType?
        public var pictureOutput = true
        public var colourPlaneID = 0
        public var picOrderCountLSB = 0
        /// The short-term reference picture set in force: coded in the header, or the SPS's.
        public var shortTermReferencePictureSet = ShortTermReferencePictureSet()
        /// `short_term_ref_pic_set_idx`, or nil when the header codes its own set.
        public var shortTermReferencePictureSetIndex: Int?
        /// `num_long_term_sps + num_long_term_pics`.
        public var longTermPictureCount = 0
        public var temporalMVPEnabled = false
        public var saoLuma = false
        public var saoChroma = false
        /// `num_ref_idx_l0_active_minus1 + 1`, `num_ref_idx_l1_active_minus1 + 1` (0 where the list is unused).
        public var numRefIdxL0Active = 0
        public var numRefIdxL1Active = 0
        /// `NumPicTotalCurr` (eq. 7-55): the pictures the current one may reference.
        public var numPicTotalCurrent = 0
        public var hasPredWeightTable = false
        public var maxNumMergeCandidates = 5
        public var sliceQPDelta = 0
        public var deblockingFilterDisabled = false
        public var numEntryPointOffsets = 0
        public var extensionLength = 0

        /// The header's size in bits, counted in the RBSP from the first bit after the two-byte
        /// NAL unit header, `byte_alignment()` included (so a whole number of bytes).
        public var headerBitCount = 0
        /// The bytes of the escaped NAL unit that hold the NAL unit header and the whole slice
        /// segment header: the clear prefix `cbcs` requires, emulation prevention bytes inside
        /// it counted.
        public var clearByteCount = 0

        /// The screen content coding profiles (`general_profile_idc` 9 and 11, Annex A.3.7 and A.3.8).
        static let screenContentProfiles: Set<UInt8> = [9, 11]
        /// A header is a few dozen bytes; this many RBSP bytes are unescaped before trying the whole NAL unit.
        static let firstTryBytes = 512

        /// Parses the slice segment header of a VCL NAL unit (types 0 ... 31; its two-byte
        /// header included, emulation prevention in place) against the given parameter sets.
        public init(nalUnit: some Collection<UInt8>, parameterSets: ParameterSets) throws(CENCError) {
            let nal = Array(nalUnit)
            let header = try NALUnit(nalUnit: nal)
            guard header.isVideoCodingLayer else {
                throw CENCError(.invalidNALUnit, "NAL unit type \(header.typeCode) is not a coded slice segment")
            }
            guard header.layerID == 0 else {
                throw CENCError(.unsupported, "a slice segment of layer \(header.layerID); only the base layer (0) is supported")
            }
            let payload = nal[2...]
            var parsed = SliceSegmentHeader()
            do throws(CENCError) {
                try parsed.parse(H264.RBSP(escaped: payload, limit: Self.firstTryBytes), type: header.typeCode, parameterSets: parameterSets)
            } catch {
                guard error.code == .truncated, payload.count > Self.firstTryBytes else { throw error }
                parsed = SliceSegmentHeader()
                try parsed.parse(H264.RBSP(escaped: payload), type: header.typeCode, parameterSets: parameterSets)
            }
            self = parsed
        }

        init() {}

        mutating func parse(_ rbsp: H264.RBSP, type: UInt8, parameterSets: ParameterSets) throws(CENCError) {
            var r = H264.BitReader(rbsp.bytes)
            nalUnitType = type
            firstSliceSegmentInPicture = try r.readFlag()
            if HEVC.randomAccessTypes.contains(type) { noOutputOfPriorPictures = try r.readFlag() }
            picParameterSetID = try r.readUE("slice_pic_parameter_set_id", in: 0 ... 63)
            guard let pps = parameterSets.pictureParameterSets[picParameterSetID] else {
                throw CENCError(.missingParameterSet, "slice segment refers to unknown PPS \(picParameterSetID)")
            }
            guard let sps = parameterSets.sequenceParameterSets[pps.sequenceParameterSetID] else {
                throw CENCError(.missingParameterSet, "PPS \(pps.id) refers to unknown SPS \(pps.sequenceParameterSetID)")
            }
            guard !Self.screenContentProfiles.contains(sps.profileTierLevel.profileIDC) else {
                throw CENCError(.unsupported, "SPS \(sps.id) is of a screen content coding profile (general_profile_idc \(sps.profileTierLevel.profileIDC))")
            }
            if !firstSliceSegmentInPicture {
                if pps.dependentSliceSegmentsEnabled { dependentSliceSegment = try r.readFlag() }
                let ctbs = sps.pictureSizeInCodingTreeBlocks
                sliceSegmentAddress = Int(try r.readBits(Self.ceilLog2(ctbs)))
                guard sliceSegmentAddress < ctbs else {
                    throw CENCError(.invalidValue, "slice_segment_address \(sliceSegmentAddress) is beyond the \(ctbs) coding tree blocks of the picture")
                }
            }
            if !dependentSliceSegment { try readSliceFields(&r, type: type, pps: pps, sps: sps) }
            if pps.tilesEnabled || pps.entropyCodingSyncEnabled {
                numEntryPointOffsets = try r.readUE("num_entry_point_offsets", in: 0 ... sps.pictureSizeInCodingTreeBlocks)
                if numEntryPointOffsets > 0 {
                    let width = try r.readUE("offset_len_minus1", in: 0 ... 31) + 1
                    try r.skipBits(numEntryPointOffsets * width)  // entry_point_offset_minus1[i]
                }
            }
            if pps.sliceSegmentHeaderExtensionPresent {
                extensionLength = try r.readUE("slice_segment_header_extension_length", in: 0 ... 256)
                try r.skipBits(8 * extensionLength)
            }
            // byte_alignment(): a one bit, then zero bits to the byte boundary.
            guard try r.readFlag() else {
                throw CENCError(.invalidValue, "alignment_bit_equal_to_one is 0 at bit \(r.bitPosition - 1) of the slice segment header")
            }
            while r.bitPosition % 8 != 0 {
                guard try !r.readFlag() else {
                    throw CENCError(.invalidValue, "alignment_bit_equal_to_zero is 1 at bit \(r.bitPosition - 1) of the slice segment header")
                }
            }
            headerBitCount = r.bitPosition
            clearByteCount = 2 + rbsp.escapedByteCount(coveringBits: headerBitCount)
        }

        /// From `slice_reserved_flag` to `slice_loop_filter_across_slices_enabled_flag`: the fields
        /// an independent slice segment carries and a dependent one inherits.
        private mutating func readSliceFields(_ r: inout H264.BitReader, type: UInt8, pps: PictureParameterSet,
                                              sps: SequenceParameterSet) throws(CENCError) {
            try r.skipBits(pps.extraSliceHeaderBits)  // slice_reserved_flag[i]
            let slice = SliceType(rawValue: try r.readUE("slice_type", in: 0 ... 2)) ?? .i
            sliceType = slice
            if HEVC.randomAccessTypes.contains(type), slice != .i {
                throw CENCError(.invalidValue, "an IRAP slice segment (NAL unit type \(type)) has slice_type \(slice.rawValue), not I (2)")
            }
            if pps.outputFlagPresent { pictureOutput = try r.readFlag() }
            if sps.separateColourPlane { colourPlaneID = Int(try r.readBits(2)) }
            let isIDR = type == NALUnitType.instantaneousDecodingRefreshWithRADL.rawValue
                || type == NALUnitType.instantaneousDecodingRefreshNoLeadingPictures.rawValue
            if !isIDR { try readReferencePictures(&r, sps: sps) }
            if sps.sampleAdaptiveOffsetEnabled {
                saoLuma = try r.readFlag()
                if sps.chromaArrayType != 0 { saoChroma = try r.readFlag() }
            }
            if slice != .i { try readInterPrediction(&r, slice: slice, pps: pps, sps: sps) }
            let qpBDOffset = 6 * (sps.bitDepthLuma - 8)
            let initQP = 26 + pps.initQPMinus26
            sliceQPDelta = try r.readSE("slice_qp_delta", in: (-qpBDOffset - initQP) ... (51 - initQP))
            if pps.sliceChromaQPOffsetsPresent {
                _ = try r.readSE("slice_cb_qp_offset", in: -12 ... 12)
                _ = try r.readSE("slice_cr_qp_offset", in: -12 ... 12)
            }
            if pps.chromaQPOffsetListEnabled { try r.skipBits(1) }  // cu_chroma_qp_offset_enabled_flag
            deblockingFilterDisabled = pps.deblockingFilterDisabled
            if pps.deblockingFilterOverrideEnabled, try r.readFlag() {  // deblocking_filter_override_flag
                deblockingFilterDisabled = try r.readFlag()
                if !deblockingFilterDisabled {
                    _ = try r.readSE("slice_beta_offset_div2", in: -6 ... 6)
                    _ = try r.readSE("slice_tc_offset_div2", in: -6 ... 6)
                }
            }
            if pps.loopFilterAcrossSlicesEnabled, saoLuma || saoChroma || !deblockingFilterDisabled {
                try r.skipBits(1)  // slice_loop_filter_across_slices_enabled_flag
            }
        }

        /// The picture order count and the short- and long-term reference pictures of a non-IDR
        /// picture; sets `numPicTotalCurrent`.
        private mutating func readReferencePictures(_ r: inout H264.BitReader, sps: SequenceParameterSet) throws(CENCError) {
            picOrderCountLSB = Int(try r.readBits(sps.log2MaxPicOrderCountLSB))
            let spsSets = sps.shortTermReferencePictureSets
            if try r.readFlag() {  // short_term_ref_pic_set_sps_flag
                guard !spsSets.isEmpty else {
                    throw CENCError(.invalidValue, "short_term_ref_pic_set_sps_flag is 1 but SPS \(sps.id) has no short-term reference picture sets")
                }
                let index = spsSets.count > 1 ? Int(try r.readBits(Self.ceilLog2(spsSets.count))) : 0
                guard spsSets.indices.contains(index) else {
                    throw CENCError(.invalidValue, "short_term_ref_pic_set_idx \(index) is beyond the SPS's \(spsSets.count) sets")
                }
                shortTermReferencePictureSetIndex = index
                shortTermReferencePictureSet = spsSets[index]
            } else {
                shortTermReferencePictureSet = try ShortTermReferencePictureSet(&r, index: spsSets.count, setCount: spsSets.count,
                                                                                earlier: spsSets)
            }
            numPicTotalCurrent = shortTermReferencePictureSet.usedByCurrentPictureCount
            if sps.longTermReferencePicturesPresent {
                let candidates = sps.longTermReferencePicturesUsedByCurrentPicture
                let fromSPS = candidates.isEmpty ? 0 : try r.readUE("num_long_term_sps", in: 0 ... candidates.count)
                let coded = try r.readUE("num_long_term_pics", in: 0 ... 32)
                longTermPictureCount = fromSPS + coded
                for i in 0 ..< longTermPictureCount {
                    let used: Bool
                    if i < fromSPS {
                        let index = candidates.count > 1 ? Int(try r.readBits(Self.ceilLog2(candidates.count))) : 0
                        guard candidates.indices.contains(index) else {
                            throw CENCError(.invalidValue, "lt_idx_sps \(index) is beyond the SPS's \(candidates.count) long-term pictures")
                        }
                        used = candidates[index]
                    } else {
                        try r.skipBits(sps.log2MaxPicOrderCountLSB)  // poc_lsb_lt
                        used = try r.readFlag()  // used_by_curr_pic_lt_flag
                    }
                    if used { numPicTotalCurrent += 1 }
                    if try r.readFlag() { _ = try r.readUE() }  // delta_poc_msb_present_flag, delta_poc_msb_cycle_lt
                }
            }
            if sps.temporalMVPEnabled { temporalMVPEnabled = try r.readFlag() }
        }

        /// The fields of a P or B slice, from `num_ref_idx_active_override_flag` to
        /// `five_minus_max_num_merge_cand`.
        private mutating func readInterPrediction(_ r: inout H264.BitReader, slice: SliceType, pps: PictureParameterSet,
                                                  sps: SequenceParameterSet) throws(CENCError) {
            numRefIdxL0Active = pps.numRefIdxL0DefaultActive
            numRefIdxL1Active = slice == .b ? pps.numRefIdxL1DefaultActive : 0
            if try r.readFlag() {  // num_ref_idx_active_override_flag
                numRefIdxL0Active = try r.readUE("num_ref_idx_l0_active_minus1", in: 0 ... 14) + 1
                if slice == .b { numRefIdxL1Active = try r.readUE("num_ref_idx_l1_active_minus1", in: 0 ... 14) + 1 }
            }
            if pps.listsModificationPresent, numPicTotalCurrent > 1 {  // ref_pic_lists_modification()
                let width = Self.ceilLog2(numPicTotalCurrent)
                if try r.readFlag() { try r.skipBits(numRefIdxL0Active * width) }  // list_entry_l0[i]
                if slice == .b, try r.readFlag() { try r.skipBits(numRefIdxL1Active * width) }  // list_entry_l1[i]
            }
            if slice == .b { try r.skipBits(1) }  // mvd_l1_zero_flag
            if pps.cabacInitPresent { try r.skipBits(1) }  // cabac_init_flag
            if temporalMVPEnabled {
                let fromL0 = slice == .b ? try r.readFlag() : true  // collocated_from_l0_flag
                let active = fromL0 ? numRefIdxL0Active : numRefIdxL1Active
                if active > 1 { _ = try r.readUE("collocated_ref_idx", in: 0 ... active - 1) }
            }
            if (pps.weightedPred && slice == .p) || (pps.weightedBipred && slice == .b) {
                hasPredWeightTable = true
                try skipPredWeightTable(&r, slice: slice, sps: sps)
            }
            maxNumMergeCandidates = 5 - (try r.readUE("five_minus_max_num_merge_cand", in: 0 ... 4))
        }

        /// `pred_weight_table()` (§7.3.6.3). In a base-layer picture without the current picture
        /// as a reference (screen content coding, refused), no reference picture shares the
        /// current picture's order count, so every weight flag is present.
        private func skipPredWeightTable(_ r: inout H264.BitReader, slice: SliceType, sps: SequenceParameterSet) throws(CENCError) {
            let lumaDenominator = try r.readUE("luma_log2_weight_denom", in: 0 ... 7)
            if sps.chromaArrayType != 0 {
                _ = try r.readSE("delta_chroma_log2_weight_denom", in: -lumaDenominator ... 7 - lumaDenominator)
            }
            // The offset ranges widen with the SPS range extension's high_precision_offsets_enabled_flag
            // (not read), so they are held to the widest: 16-bit samples.
            let offsets = -(1 << 15) ... (1 << 15) - 1
            let chromaOffsets = -(4 << 15) ... (4 << 15) - 1
            for count in slice == .b ? [numRefIdxL0Active, numRefIdxL1Active] : [numRefIdxL0Active] {
                var luma: [Bool] = [], chroma: [Bool] = []
                for _ in 0 ..< count { luma.append(try r.readFlag()) }
                if sps.chromaArrayType != 0 { for _ in 0 ..< count { chroma.append(try r.readFlag()) } }
                for i in 0 ..< count {
                    if luma[i] {
                        _ = try r.readSE("delta_luma_weight", in: -128 ... 127)
                        _ = try r.readSE("luma_offset", in: offsets)
                    }
                    if chroma.indices.contains(i), chroma[i] {
                        for _ in 0 ..< 2 {
                            _ = try r.readSE("delta_chroma_weight", in: -128 ... 127)
                            _ = try r.readSE("delta_chroma_offset", in: chromaOffsets)
                        }
                    }
                }
            }
        }

        /// `Ceil(Log2(n))`, the width of a fixed-length index into `n` entries (0 for n ≤ 1).
        static func ceilLog2(_ n: Int) -> Int {
            n <= 1 ? 0 : Int.bitWidth - (n - 1).leadingZeroBitCount
        }
    }
}
