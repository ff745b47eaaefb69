extension HEVC {
    /// The start of a sequence parameter set (§7.3.2.2.1), down to the picture size: the
    /// parameter set ids, `profile_tier_level()`, the chroma format and the coded size. The rest
    /// of the SPS is not needed to cut or label a stream, and is not read.
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
        public var picWidthInLumaSamples: Int
        public var picHeightInLumaSamples: Int

        /// The largest coded picture dimension read (level 6.2 allows 16888 luma samples a side).
        static let maximumDimension = 1 << 16

        /// Parses an SPS NAL unit (its two-byte header included, emulation prevention in place).
        public init(nalUnit: some Collection<UInt8>) throws(CENCError) {
            let header = try NALUnit(nalUnit: nalUnit)
            guard header.type == .sequenceParameterSet else {
                throw CENCError(.invalidNALUnit, "NAL unit type \(header.typeCode) is not an SPS (33)")
            }
            // The fields read here end within the first 128 RBSP bytes: 2 bytes of ids, at most
            // 12 + 2 + 6 * 12 of profile_tier_level, then four exp-Golomb codes.
            var reader = H264.BitReader(H264.RBSP(escaped: Array(nalUnit).dropFirst(2), limit: 128).bytes)
            videoParameterSetID = Int(try reader.readBits(4))
            maxSubLayersMinus1 = Int(try reader.readBits(3))
            guard maxSubLayersMinus1 <= 6 else {
                throw CENCError(.invalidValue, "sps_max_sub_layers_minus1 is \(maxSubLayersMinus1), over 6")
            }
            try reader.skipBits(1)  // sps_temporal_id_nesting_flag
            profileTierLevel = try ProfileTierLevel(&reader, maxSubLayersMinus1: maxSubLayersMinus1)
            id = try reader.readUE("sps_seq_parameter_set_id", in: 0 ... 15)
            chromaFormatIDC = try reader.readUE("chroma_format_idc", in: 0 ... 3)
            if chromaFormatIDC == 3 { try reader.skipBits(1) }  // separate_colour_plane_flag
            picWidthInLumaSamples = try reader.readUE("pic_width_in_luma_samples", in: 1 ... Self.maximumDimension)
            picHeightInLumaSamples = try reader.readUE("pic_height_in_luma_samples", in: 1 ... Self.maximumDimension)
        }
    }
}
