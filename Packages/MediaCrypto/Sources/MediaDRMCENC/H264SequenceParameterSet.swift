extension H264 {
    /// A sequence parameter set (§7.3.2.1.1), parsed whole, VUI included, down to its trailing
    /// bits. Keeps what slice headers, the codec string and the resolution need.
    public struct SequenceParameterSet: Sendable, Equatable {
        public var profileIDC: UInt8
        /// The byte of `constraint_set0_flag` ... `reserved_zero_2bits`, as stored.
        public var constraintFlags: UInt8
        public var levelIDC: UInt8
        /// `seq_parameter_set_id`, 0 ... 31.
        public var id: Int
        /// 0 (monochrome) ... 3 (4:4:4); 1 when the profile does not carry it.
        public var chromaFormatIDC: Int = 1
        public var separateColourPlane = false
        public var bitDepthLuma = 8
        public var bitDepthChroma = 8
        public var qpprimeYZeroTransformBypass = false
        public var seqScalingMatrixPresent = false
        /// `log2_max_frame_num_minus4 + 4`: the width in bits of `frame_num`, 4 ... 16.
        public var log2MaxFrameNum: Int
        /// 0, 1 or 2.
        public var picOrderCountType: Int
        /// `log2_max_pic_order_cnt_lsb_minus4 + 4` (type 0 only), 4 ... 16.
        public var log2MaxPicOrderCountLSB = 0
        public var deltaPicOrderAlwaysZero = false
        public var offsetForNonRefPic = 0
        public var offsetForTopToBottomField = 0
        public var offsetsForRefFrame: [Int] = []
        public var maxNumRefFrames: Int
        public var gapsInFrameNumValueAllowed: Bool
        public var picWidthInMacroblocks: Int
        public var picHeightInMapUnits: Int
        public var frameMacroblocksOnly: Bool
        public var macroblockAdaptiveFrameField = false
        public var direct8x8Inference: Bool
        /// `frame_crop_left/right/top/bottom_offset`, in crop units.
        public var frameCropLeft = 0, frameCropRight = 0, frameCropTop = 0, frameCropBottom = 0
        public var vui: VideoUsabilityInformation?

        /// The VUI fields a packager uses (Annex E); the rest is parsed and checked, not kept.
        public struct VideoUsabilityInformation: Sendable, Equatable {
            /// The sample aspect ratio; 0 when unspecified.
            public var sarWidth = 0, sarHeight = 0
            public var videoFullRange = false
            public var colourPrimaries: Int?
            public var transferCharacteristics: Int?
            public var matrixCoefficients: Int?
            public var numUnitsInTick: UInt32?
            public var timeScale: UInt32?
            public var fixedFrameRate = false
            public var maxNumReorderFrames: Int?
            public var maxDecFrameBuffering: Int?
        }

        /// `ChromaArrayType`: 0 with separate colour planes, else `chroma_format_idc`.
        public var chromaArrayType: Int { separateColourPlane ? 0 : chromaFormatIDC }

        /// Macroblocks in a frame (`PicSizeInMbs` of a frame picture).
        public var frameSizeInMacroblocks: Int {
            picWidthInMacroblocks * picHeightInMapUnits * (frameMacroblocksOnly ? 1 : 2)
        }

        /// The displayed width in luma samples, after cropping (7-18, 7-19).
        public var width: Int { picWidthInMacroblocks * 16 - cropUnitX * (frameCropLeft + frameCropRight) }
        /// The displayed height in luma samples, after cropping (7-20, 7-21).
        public var height: Int {
            picHeightInMapUnits * (frameMacroblocksOnly ? 1 : 2) * 16 - cropUnitY * (frameCropTop + frameCropBottom)
        }

        var cropUnitX: Int { chromaArrayType == 0 ? 1 : (chromaFormatIDC == 3 ? 1 : 2) }
        var cropUnitY: Int {
            let subHeightC = chromaArrayType == 0 ? 1 : (chromaFormatIDC == 1 ? 2 : 1)
            return subHeightC * (frameMacroblocksOnly ? 1 : 2)
        }

        /// The RFC 6381 codec string, `avc1.PPCCLL` (profile, constraint byte, level in hex).
        public var codecString: String {
            "avc1." + [profileIDC, constraintFlags, levelIDC].map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
        }

        /// Parses an SPS NAL unit (header byte included, emulation prevention present).
        public init(nalUnit: some Collection<UInt8>) throws(CENCError) {
            let nal = ArraySlice(nalUnit)
            guard let header = nal.first else { throw CENCError(.truncated, "empty SPS NAL unit") }
            guard header & 0x80 == 0, header & 0x1F == NALUnitType.sequenceParameterSet.rawValue else {
                throw CENCError(.invalidNALUnit, "not a sequence parameter set NAL unit")
            }
            try self.init(rbsp: RBSP(escaped: nal.dropFirst()).bytes)
        }

        /// Parses an SPS RBSP (after the NAL unit header, emulation prevention removed).
        public init(rbsp: [UInt8]) throws(CENCError) {
            var r = BitReader(rbsp)
            profileIDC = UInt8(truncatingIfNeeded: try r.readBits(8))
            constraintFlags = UInt8(truncatingIfNeeded: try r.readBits(8))
            levelIDC = UInt8(truncatingIfNeeded: try r.readBits(8))
            id = try r.readUE("seq_parameter_set_id", in: 0 ... 31)
            if H264.highProfileIDCs.contains(profileIDC) {
                chromaFormatIDC = try r.readUE("chroma_format_idc", in: 0 ... 3)
                if chromaFormatIDC == 3 { separateColourPlane = try r.readFlag() }
                bitDepthLuma = try r.readUE("bit_depth_luma_minus8", in: 0 ... 6) + 8
                bitDepthChroma = try r.readUE("bit_depth_chroma_minus8", in: 0 ... 6) + 8
                qpprimeYZeroTransformBypass = try r.readFlag()
                seqScalingMatrixPresent = try r.readFlag()
                if seqScalingMatrixPresent {
                    for index in 0 ..< (chromaFormatIDC == 3 ? 12 : 8) {
                        if try r.readFlag() { try H264.readScalingList(&r, size: index < 6 ? 16 : 64) }
                    }
                }
            }
            log2MaxFrameNum = try r.readUE("log2_max_frame_num_minus4", in: 0 ... 12) + 4
            picOrderCountType = try r.readUE("pic_order_cnt_type", in: 0 ... 2)
            if picOrderCountType == 0 {
                log2MaxPicOrderCountLSB = try r.readUE("log2_max_pic_order_cnt_lsb_minus4", in: 0 ... 12) + 4
            } else if picOrderCountType == 1 {
                deltaPicOrderAlwaysZero = try r.readFlag()
                offsetForNonRefPic = Int(try r.readSE())
                offsetForTopToBottomField = Int(try r.readSE())
                let cycle = try r.readUE("num_ref_frames_in_pic_order_cnt_cycle", in: 0 ... 255)
                for _ in 0 ..< cycle { offsetsForRefFrame.append(Int(try r.readSE())) }
            }
            maxNumRefFrames = try r.readUE("max_num_ref_frames", in: 0 ... 16)
            gapsInFrameNumValueAllowed = try r.readFlag()
            // 4096 macroblocks (65,536 samples) is far beyond level 6.2 and keeps sizes in range.
            picWidthInMacroblocks = try r.readUE("pic_width_in_mbs_minus1", in: 0 ... 4095) + 1
            picHeightInMapUnits = try r.readUE("pic_height_in_map_units_minus1", in: 0 ... 4095) + 1
            frameMacroblocksOnly = try r.readFlag()
            if !frameMacroblocksOnly { macroblockAdaptiveFrameField = try r.readFlag() }
            direct8x8Inference = try r.readFlag()
            if try r.readFlag() {
                frameCropLeft = try r.readUE("frame_crop_left_offset", in: 0 ... 65535)
                frameCropRight = try r.readUE("frame_crop_right_offset", in: 0 ... 65535)
                frameCropTop = try r.readUE("frame_crop_top_offset", in: 0 ... 65535)
                frameCropBottom = try r.readUE("frame_crop_bottom_offset", in: 0 ... 65535)
                guard cropUnitX * (frameCropLeft + frameCropRight) < picWidthInMacroblocks * 16,
                      cropUnitY * (frameCropTop + frameCropBottom) < picHeightInMapUnits * (frameMacroblocksOnly ? 1 : 2) * 16
                else {
                    throw CENCError(.invalidValue, "frame cropping removes the whole picture")
                }
            }
            if try r.readFlag() { vui = try VideoUsabilityInformation(&r) }
            try r.readTrailingBits()
        }
    }

    /// Reads a `scaling_list()` (§7.3.2.1.1.1) of `size` entries (16 or 64), checking each
    /// `delta_scale`; the values are not kept (nothing here dequantises).
    static func readScalingList(_ r: inout BitReader, size: Int) throws(CENCError) {
        var lastScale = 8
        var nextScale = 8
        for _ in 0 ..< size where nextScale != 0 {
            let delta = try r.readSE("delta_scale", in: -128 ... 127)
            nextScale = (lastScale + delta + 256) % 256
            if nextScale != 0 { lastScale = nextScale }
        }
    }
}

extension H264.SequenceParameterSet.VideoUsabilityInformation {
    /// `vui_parameters()` (Annex E.1.1).
    init(_ r: inout H264.BitReader) throws(CENCError) {
        if try r.readFlag() {  // aspect_ratio_info_present_flag
            let idc = Int(try r.readBits(8))
            if idc == 255 {
                sarWidth = Int(try r.readBits(16))
                sarHeight = Int(try r.readBits(16))
            } else if idc < Self.sampleAspectRatios.count {
                (sarWidth, sarHeight) = Self.sampleAspectRatios[idc]
            }
        }
        if try r.readFlag() { _ = try r.readFlag() }  // overscan_info_present_flag, overscan_appropriate_flag
        if try r.readFlag() {  // video_signal_type_present_flag
            _ = try r.readBits(3)  // video_format
            videoFullRange = try r.readFlag()
            if try r.readFlag() {  // colour_description_present_flag
                colourPrimaries = Int(try r.readBits(8))
                transferCharacteristics = Int(try r.readBits(8))
                matrixCoefficients = Int(try r.readBits(8))
            }
        }
        if try r.readFlag() {  // chroma_loc_info_present_flag
            _ = try r.readUE("chroma_sample_loc_type_top_field", in: 0 ... 5)
            _ = try r.readUE("chroma_sample_loc_type_bottom_field", in: 0 ... 5)
        }
        if try r.readFlag() {  // timing_info_present_flag
            numUnitsInTick = try r.readBits(32)
            timeScale = try r.readBits(32)
            fixedFrameRate = try r.readFlag()
        }
        let nalHRD = try r.readFlag()
        if nalHRD { try Self.readHRDParameters(&r) }
        let vclHRD = try r.readFlag()
        if vclHRD { try Self.readHRDParameters(&r) }
        if nalHRD || vclHRD { _ = try r.readFlag() }  // low_delay_hrd_flag
        _ = try r.readFlag()  // pic_struct_present_flag
        if try r.readFlag() {  // bitstream_restriction_flag
            _ = try r.readFlag()  // motion_vectors_over_pic_boundaries_flag
            _ = try r.readUE("max_bytes_per_pic_denom", in: 0 ... 16)
            _ = try r.readUE("max_bits_per_mb_denom", in: 0 ... 16)
            _ = try r.readUE("log2_max_mv_length_horizontal", in: 0 ... 16)
            _ = try r.readUE("log2_max_mv_length_vertical", in: 0 ... 16)
            maxNumReorderFrames = try r.readUE("max_num_reorder_frames", in: 0 ... 16)
            maxDecFrameBuffering = try r.readUE("max_dec_frame_buffering", in: 0 ... 16)
        }
    }

    /// `hrd_parameters()` (E.1.2), checked and dropped.
    static func readHRDParameters(_ r: inout H264.BitReader) throws(CENCError) {
        let count = try r.readUE("cpb_cnt_minus1", in: 0 ... 31) + 1
        _ = try r.readBits(4)  // bit_rate_scale
        _ = try r.readBits(4)  // cpb_size_scale
        for _ in 0 ..< count {
            _ = try r.readUE()  // bit_rate_value_minus1
            _ = try r.readUE()  // cpb_size_value_minus1
            _ = try r.readFlag()  // cbr_flag
        }
        _ = try r.readBits(5 + 5 + 5 + 5)  // the three delay lengths and time_offset_length
    }

    /// Table E-1, indices 1 ... 16 (0 is unspecified).
    static let sampleAspectRatios: [(Int, Int)] = [
        (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]
}
