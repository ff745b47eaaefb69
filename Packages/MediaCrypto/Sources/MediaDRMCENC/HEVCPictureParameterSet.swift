extension HEVC {
    /// A picture parameter set (§7.3.2.3.1) and its range extension (§7.3.2.3.2): every field a
    /// slice segment header's syntax depends on. The multilayer, 3D and screen content coding
    /// extensions are refused as unsupported: each changes the slice segment header.
    public struct PictureParameterSet: Sendable, Equatable {
        /// `pps_pic_parameter_set_id` (0 ... 63), `pps_seq_parameter_set_id` (0 ... 15).
        public var id: Int
        public var sequenceParameterSetID: Int
        public var dependentSliceSegmentsEnabled = false
        public var outputFlagPresent = false
        /// `num_extra_slice_header_bits` (0 ... 7).
        public var extraSliceHeaderBits = 0
        public var cabacInitPresent = false
        /// `num_ref_idx_l0_default_active_minus1 + 1`, `num_ref_idx_l1_default_active_minus1 + 1` (1 ... 15).
        public var numRefIdxL0DefaultActive = 1
        public var numRefIdxL1DefaultActive = 1
        /// `init_qp_minus26` (-(26 + QpBdOffsetY) ... 25).
        public var initQPMinus26 = 0
        public var sliceChromaQPOffsetsPresent = false
        public var weightedPred = false
        public var weightedBipred = false
        public var tilesEnabled = false
        public var entropyCodingSyncEnabled = false
        public var loopFilterAcrossSlicesEnabled = false
        public var deblockingFilterOverrideEnabled = false
        public var deblockingFilterDisabled = false
        public var listsModificationPresent = false
        public var sliceSegmentHeaderExtensionPresent = false
        /// `chroma_qp_offset_list_enabled_flag` of the range extension.
        public var chromaQPOffsetListEnabled = false

        /// A PPS fits in this many RBSP bytes: ids, flags, at most 2 x 20 tile sizes and six
        /// scaling matrices of 64 coefficients, a few bytes each.
        static let maximumRBSPBytes = 4096

        /// Parses a PPS NAL unit (its two-byte header included, emulation prevention in place).
        /// `sequenceParameterSets` are those in force; the one named must be among them.
        public init(nalUnit: some Collection<UInt8>, sequenceParameterSets: [Int: SequenceParameterSet]) throws(CENCError) {
            let header = try NALUnit(nalUnit: nalUnit)
            guard header.type == .pictureParameterSet else {
                throw CENCError(.invalidNALUnit, "NAL unit type \(header.typeCode) is not a PPS (34)")
            }
            var r = H264.BitReader(H264.RBSP(escaped: Array(nalUnit).dropFirst(2), limit: Self.maximumRBSPBytes).bytes)
            id = try r.readUE("pps_pic_parameter_set_id", in: 0 ... 63)
            sequenceParameterSetID = try r.readUE("pps_seq_parameter_set_id", in: 0 ... 15)
            guard let sps = sequenceParameterSets[sequenceParameterSetID] else {
                throw CENCError(.missingParameterSet, "PPS \(id) names SPS \(sequenceParameterSetID), which was not given")
            }
            dependentSliceSegmentsEnabled = try r.readFlag()
            outputFlagPresent = try r.readFlag()
            extraSliceHeaderBits = Int(try r.readBits(3))
            try r.skipBits(1)  // sign_data_hiding_enabled_flag
            cabacInitPresent = try r.readFlag()
            numRefIdxL0DefaultActive = try r.readUE("num_ref_idx_l0_default_active_minus1", in: 0 ... 14) + 1
            numRefIdxL1DefaultActive = try r.readUE("num_ref_idx_l1_default_active_minus1", in: 0 ... 14) + 1
            initQPMinus26 = try r.readSE("init_qp_minus26", in: -(26 + 6 * (sps.bitDepthLuma - 8)) ... 25)
            try r.skipBits(1)  // constrained_intra_pred_flag
            let transformSkipEnabled = try r.readFlag()
            if try r.readFlag() { _ = try r.readUE("diff_cu_qp_delta_depth", in: 0 ... 3) }  // cu_qp_delta_enabled_flag
            _ = try r.readSE("pps_cb_qp_offset", in: -12 ... 12)
            _ = try r.readSE("pps_cr_qp_offset", in: -12 ... 12)
            sliceChromaQPOffsetsPresent = try r.readFlag()
            weightedPred = try r.readFlag()
            weightedBipred = try r.readFlag()
            try r.skipBits(1)  // transquant_bypass_enabled_flag
            tilesEnabled = try r.readFlag()
            entropyCodingSyncEnabled = try r.readFlag()
            if tilesEnabled { try Self.skipTiles(&r) }
            loopFilterAcrossSlicesEnabled = try r.readFlag()
            if try r.readFlag() {  // deblocking_filter_control_present_flag
                deblockingFilterOverrideEnabled = try r.readFlag()
                deblockingFilterDisabled = try r.readFlag()
                if !deblockingFilterDisabled {
                    _ = try r.readSE("pps_beta_offset_div2", in: -6 ... 6)
                    _ = try r.readSE("pps_tc_offset_div2", in: -6 ... 6)
                }
            }
            if try r.readFlag() { try ScalingListData.skip(&r) }  // pps_scaling_list_data_present_flag
            listsModificationPresent = try r.readFlag()
            _ = try r.readUE("log2_parallel_merge_level_minus2", in: 0 ... 4)
            sliceSegmentHeaderExtensionPresent = try r.readFlag()
            guard try r.readFlag() else { return }  // pps_extension_present_flag
            let rangeExtension = try r.readFlag()
            let multilayer = try r.readFlag(), threeD = try r.readFlag(), screenContent = try r.readFlag()
            try r.skipBits(4)  // pps_extension_4bits: their pps_extension_data_flag follow the extensions read
            guard !multilayer, !threeD, !screenContent else {
                throw CENCError(.unsupported, "PPS \(id) has a multilayer, 3D or screen content coding extension")
            }
            if rangeExtension { try readRangeExtension(&r, transformSkipEnabled: transformSkipEnabled) }
        }

        /// The tile columns and rows (§7.3.2.3.1): read past, nothing in a slice header depends on them.
        private static func skipTiles(_ r: inout H264.BitReader) throws(CENCError) {
            let columns = try r.readUE("num_tile_columns_minus1", in: 0 ... 19)
            let rows = try r.readUE("num_tile_rows_minus1", in: 0 ... 21)
            if try !r.readFlag() {  // uniform_spacing_flag 0: each size but the last
                for _ in 0 ..< columns { _ = try r.readUE() }
                for _ in 0 ..< rows { _ = try r.readUE() }
            }
            try r.skipBits(1)  // loop_filter_across_tiles_enabled_flag
        }

        /// `pps_range_extension()` (§7.3.2.3.2), up to and including the chroma QP offset lists.
        private mutating func readRangeExtension(_ r: inout H264.BitReader, transformSkipEnabled: Bool) throws(CENCError) {
            if transformSkipEnabled { _ = try r.readUE("log2_max_transform_skip_block_size_minus2", in: 0 ... 3) }
            try r.skipBits(1)  // cross_component_prediction_enabled_flag
            chromaQPOffsetListEnabled = try r.readFlag()
            if chromaQPOffsetListEnabled {
                _ = try r.readUE("diff_cu_chroma_qp_offset_depth", in: 0 ... 3)
                let length = try r.readUE("chroma_qp_offset_list_len_minus1", in: 0 ... 5) + 1
                for _ in 0 ..< length {
                    _ = try r.readSE("cb_qp_offset_list", in: -12 ... 12)
                    _ = try r.readSE("cr_qp_offset_list", in: -12 ... 12)
                }
            }
            _ = try r.readUE("log2_sao_offset_scale_luma", in: 0 ... 6)
            _ = try r.readUE("log2_sao_offset_scale_chroma", in: 0 ... 6)
        }
    }
}
