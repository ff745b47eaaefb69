extension HEVC {
    /// A sequence parameter set (§7.3.2.2.1) down to `strong_intra_smoothing_enabled_flag`: the
    /// parameter set ids, `profile_tier_level()`, the chroma format and coded size (to cut and
    /// label a stream), and every field a slice segment header's syntax depends on (to find where
    /// it ends). The VUI and the extensions after it are not read: no field of theirs shapes a
    /// base-layer slice segment header outside the screen content coding profiles, which
    /// `SliceSegmentHeader` refuses.
    public struct SequenceParameterSet: Sendable, Equatable {
        /// `sps_video_parameter_set_id` (0 ... 15).
        public var videoParameterSetID: Int
        /// `sps_max_sub_layers_minus1` (0 ... 6).
        public var maxSubLayersMinus1: Int
        public var profileTierLevel: ProfileTierLevel
        /// `sps_seq_parameter_set_id` (0 ... 15).
        public var id: Int
        /// `chroma_format_idc` (0 ... 3).
        public var chromaFormatIDC: Int
        public var separateColourPlane = false
        public var picWidthInLumaSamples: Int
        public var picHeightInLumaSamples: Int
        /// `bit_depth_luma_minus8 + 8`, `bit_depth_chroma_minus8 + 8` (8 ... 16).
        public var bitDepthLuma = 8
        public var bitDepthChroma = 8
        /// `log2_max_pic_order_cnt_lsb_minus4 + 4` (4 ... 16): the width of `slice_pic_order_cnt_lsb`.
        public var log2MaxPicOrderCountLSB = 4
        /// `MinCbLog2SizeY` and `CtbLog2SizeY` (§7.4.3.2.1).
        public var minCodingBlockLog2Size = 3
        public var codingTreeBlockLog2Size = 4
        public var sampleAdaptiveOffsetEnabled = false
        /// `st_ref_pic_set(i)` for i in 0 ..< `num_short_term_ref_pic_sets`.
        public var shortTermReferencePictureSets: [ShortTermReferencePictureSet] = []
        public var longTermReferencePicturesPresent = false
        /// `used_by_curr_pic_lt_sps_flag[i]` of each `lt_ref_pic_poc_lsb_sps[i]` (0 ... 32 entries).
        public var longTermReferencePicturesUsedByCurrentPicture: [Bool] = []
        public var temporalMVPEnabled = false

        /// The largest coded picture dimension read (level 6.2 allows 16888 luma samples a side).
        static let maximumDimension = 1 << 16

        /// `ChromaArrayType`: 0 for monochrome or separately coded colour planes.
        public var chromaArrayType: Int { separateColourPlane ? 0 : chromaFormatIDC }

        /// `PicSizeInCtbsY` (§7.4.3.2.1).
        public var pictureSizeInCodingTreeBlocks: Int {
            let ctb = 1 << codingTreeBlockLog2Size
            return ((picWidthInLumaSamples + ctb - 1) / ctb) * ((picHeightInLumaSamples + ctb - 1) / ctb)
        }

        /// Parses an SPS NAL unit (its two-byte header included, emulation prevention in place).
        public init(nalUnit: some Collection<UInt8>) throws(CENCError) {
            let header = try NALUnit(nalUnit: nalUnit)
            guard header.type == .sequenceParameterSet else {
                throw CENCError(.invalidNALUnit, "NAL unit type \(header.typeCode) is not an SPS (33)")
            }
            var reader = H264.BitReader(H264.RBSP(escaped: Array(nalUnit).dropFirst(2)).bytes)
            videoParameterSetID = Int(try reader.readBits(4))
            maxSubLayersMinus1 = Int(try reader.readBits(3))
            guard maxSubLayersMinus1 <= 6 else {
                throw CENCError(.invalidValue, "sps_max_sub_layers_minus1 is \(maxSubLayersMinus1), over 6")
            }
            try reader.skipBits(1)  // sps_temporal_id_nesting_flag
            profileTierLevel = try ProfileTierLevel(&reader, maxSubLayersMinus1: maxSubLayersMinus1)
            id = try reader.readUE("sps_seq_parameter_set_id", in: 0 ... 15)
            chromaFormatIDC = try reader.readUE("chroma_format_idc", in: 0 ... 3)
            if chromaFormatIDC == 3 { separateColourPlane = try reader.readFlag() }
            picWidthInLumaSamples = try reader.readUE("pic_width_in_luma_samples", in: 1 ... Self.maximumDimension)
            picHeightInLumaSamples = try reader.readUE("pic_height_in_luma_samples", in: 1 ... Self.maximumDimension)
            try readCodingStructure(&reader)
        }

        /// From `conformance_window_flag` to `strong_intra_smoothing_enabled_flag`.
        private mutating func readCodingStructure(_ reader: inout H264.BitReader) throws(CENCError) {
            if try reader.readFlag() {  // conformance_window_flag: four offsets
                for _ in 0 ..< 4 { _ = try reader.readUE("conf_win_offset", in: 0 ... Self.maximumDimension) }
            }
            bitDepthLuma = try reader.readUE("bit_depth_luma_minus8", in: 0 ... 8) + 8
            bitDepthChroma = try reader.readUE("bit_depth_chroma_minus8", in: 0 ... 8) + 8
            log2MaxPicOrderCountLSB = try reader.readUE("log2_max_pic_order_cnt_lsb_minus4", in: 0 ... 12) + 4
            let orderingInfoForEachSubLayer = try reader.readFlag()
            for _ in (orderingInfoForEachSubLayer ? 0 : maxSubLayersMinus1) ... maxSubLayersMinus1 {
                _ = try reader.readUE("sps_max_dec_pic_buffering_minus1", in: 0 ... 15)
                _ = try reader.readUE("sps_max_num_reorder_pics", in: 0 ... 15)
                _ = try reader.readUE()  // sps_max_latency_increase_plus1
            }
            minCodingBlockLog2Size = try reader.readUE("log2_min_luma_coding_block_size_minus3", in: 0 ... 3) + 3
            codingTreeBlockLog2Size = minCodingBlockLog2Size
                + (try reader.readUE("log2_diff_max_min_luma_coding_block_size", in: 0 ... 6 - minCodingBlockLog2Size))
            _ = try reader.readUE("log2_min_luma_transform_block_size_minus2", in: 0 ... 3)
            _ = try reader.readUE("log2_diff_max_min_luma_transform_block_size", in: 0 ... 3)
            _ = try reader.readUE("max_transform_hierarchy_depth_inter", in: 0 ... 4)
            _ = try reader.readUE("max_transform_hierarchy_depth_intra", in: 0 ... 4)
            if try reader.readFlag(), try reader.readFlag() {  // scaling_list_enabled_flag, sps_scaling_list_data_present_flag
                try ScalingListData.skip(&reader)
            }
            try reader.skipBits(1)  // amp_enabled_flag
            sampleAdaptiveOffsetEnabled = try reader.readFlag()
            if try reader.readFlag() {  // pcm_enabled_flag
                try reader.skipBits(8)  // pcm_sample_bit_depth_luma_minus1, pcm_sample_bit_depth_chroma_minus1
                _ = try reader.readUE("log2_min_pcm_luma_coding_block_size_minus3", in: 0 ... 2)
                _ = try reader.readUE("log2_diff_max_min_pcm_luma_coding_block_size", in: 0 ... 2)
                try reader.skipBits(1)  // pcm_loop_filter_disabled_flag
            }
            let setCount = try reader.readUE("num_short_term_ref_pic_sets", in: 0 ... ShortTermReferencePictureSet.maximumCount)
            for index in 0 ..< setCount {
                shortTermReferencePictureSets.append(
                    try ShortTermReferencePictureSet(&reader, index: index, setCount: setCount, earlier: shortTermReferencePictureSets))
            }
            longTermReferencePicturesPresent = try reader.readFlag()
            if longTermReferencePicturesPresent {
                let count = try reader.readUE("num_long_term_ref_pics_sps", in: 0 ... 32)
                for _ in 0 ..< count {
                    try reader.skipBits(log2MaxPicOrderCountLSB)  // lt_ref_pic_poc_lsb_sps
                    longTermReferencePicturesUsedByCurrentPicture.append(try reader.readFlag())
                }
            }
            temporalMVPEnabled = try reader.readFlag()
            try reader.skipBits(1)  // strong_intra_smoothing_enabled_flag
        }
    }
}
