extension H264 {
    /// A picture parameter set (§7.3.2.2), parsed whole down to its trailing bits. Flexible
    /// macroblock ordering (more than one slice group) is refused as unsupported: no profile the
    /// packager accepts allows it, and its slice headers carry a field this parser does not size.
    public struct PictureParameterSet: Sendable, Equatable {
        /// `pic_parameter_set_id`, 0 ... 255.
        public var id: Int
        /// `seq_parameter_set_id`, 0 ... 31.
        public var sequenceParameterSetID: Int
        /// CABAC when set, CAVLC when clear.
        public var entropyCodingModeFlag: Bool
        public var bottomFieldPicOrderInFramePresent: Bool
        /// Always 1 here (FMO refused).
        public var numSliceGroups: Int
        /// `num_ref_idx_l0_default_active_minus1 + 1`, 1 ... 32.
        public var numRefIdxL0DefaultActive: Int
        /// `num_ref_idx_l1_default_active_minus1 + 1`, 1 ... 32.
        public var numRefIdxL1DefaultActive: Int
        public var weightedPredFlag: Bool
        /// 0, 1 (explicit) or 2 (implicit).
        public var weightedBipredIDC: Int
        public var picInitQPMinus26: Int
        public var picInitQSMinus26: Int
        public var chromaQPIndexOffset: Int
        public var deblockingFilterControlPresent: Bool
        public var constrainedIntraPred: Bool
        public var redundantPicCountPresent: Bool
        public var transform8x8Mode = false
        public var picScalingMatrixPresent = false
        public var secondChromaQPIndexOffset: Int

        /// Parses a PPS NAL unit (header byte included, emulation prevention present).
        /// `sequenceParameterSets` is consulted only when the PPS carries 8x8 scaling lists,
        /// whose count depends on the SPS's `chroma_format_idc`.
        public init(nalUnit: some Collection<UInt8>,
                    sequenceParameterSets: [Int: SequenceParameterSet] = [:]) throws(CENCError) {
            let nal = ArraySlice(nalUnit)
            guard let header = nal.first else { throw CENCError(.truncated, "empty PPS NAL unit") }
            guard header & 0x80 == 0, header & 0x1F == NALUnitType.pictureParameterSet.rawValue else {
                throw CENCError(.invalidNALUnit, "not a picture parameter set NAL unit")
            }
            try self.init(rbsp: RBSP(escaped: nal.dropFirst()).bytes, sequenceParameterSets: sequenceParameterSets)
        }

        /// Parses a PPS RBSP (after the NAL unit header, emulation prevention removed).
        public init(rbsp: [UInt8], sequenceParameterSets: [Int: SequenceParameterSet] = [:]) throws(CENCError) {
            var r = BitReader(rbsp)
            id = try r.readUE("pic_parameter_set_id", in: 0 ... 255)
            sequenceParameterSetID = try r.readUE("seq_parameter_set_id", in: 0 ... 31)
            entropyCodingModeFlag = try r.readFlag()
            bottomFieldPicOrderInFramePresent = try r.readFlag()
            numSliceGroups = try r.readUE("num_slice_groups_minus1", in: 0 ... 7) + 1
            guard numSliceGroups == 1 else {
                throw CENCError(.unsupported, "num_slice_groups is \(numSliceGroups): flexible macroblock ordering is not supported")
            }
            numRefIdxL0DefaultActive = try r.readUE("num_ref_idx_l0_default_active_minus1", in: 0 ... 31) + 1
            numRefIdxL1DefaultActive = try r.readUE("num_ref_idx_l1_default_active_minus1", in: 0 ... 31) + 1
            weightedPredFlag = try r.readFlag()
            weightedBipredIDC = Int(try r.readBits(2))
            guard weightedBipredIDC <= 2 else { throw CENCError(.invalidValue, "weighted_bipred_idc is 3") }
            // QpBdOffsetY reaches 36 at 14-bit depth.
            picInitQPMinus26 = try r.readSE("pic_init_qp_minus26", in: -62 ... 25)
            picInitQSMinus26 = try r.readSE("pic_init_qs_minus26", in: -26 ... 25)
            chromaQPIndexOffset = try r.readSE("chroma_qp_index_offset", in: -12 ... 12)
            deblockingFilterControlPresent = try r.readFlag()
            constrainedIntraPred = try r.readFlag()
            redundantPicCountPresent = try r.readFlag()
            secondChromaQPIndexOffset = chromaQPIndexOffset
            if r.hasMoreRBSPData() {
                transform8x8Mode = try r.readFlag()
                picScalingMatrixPresent = try r.readFlag()
                if picScalingMatrixPresent {
                    var listCount = 6
                    if transform8x8Mode {
                        guard let sps = sequenceParameterSets[sequenceParameterSetID] else {
                            throw CENCError(.missingParameterSet, "PPS \(id) has 8x8 scaling lists but SPS \(sequenceParameterSetID) is unknown")
                        }
                        listCount += sps.chromaFormatIDC == 3 ? 6 : 2
                    }
                    for index in 0 ..< listCount {
                        if try r.readFlag() { try H264.readScalingList(&r, size: index < 6 ? 16 : 64) }
                    }
                }
                secondChromaQPIndexOffset = try r.readSE("second_chroma_qp_index_offset", in: -12 ... 12)
            }
            try r.readTrailingBits()
        }
    }
}
