import MediaDRMMP4

extension HEVC {
    /// The VPSs, SPSs and PPSs in force for a track: from `hvcC` first, then replaced by any
    /// that arrive in band (an `hev1` track may carry them in its samples; ids are the keys).
    public struct ParameterSets: Sendable, Equatable {
        public private(set) var videoParameterSetIDs: Set<Int> = []
        public private(set) var sequenceParameterSets: [Int: SequenceParameterSet] = [:]
        public private(set) var pictureParameterSets: [Int: PictureParameterSet] = [:]

        public init() {}

        /// The parameter sets of the `hvcC` arrays, in the record's order.
        public init(configuration: HEVCConfigurationBox) throws(CENCError) {
            for array in configuration.arrays {
                for nal in array.nalUnits { try update(with: nal) }
            }
        }

        /// At least one of each: a decoder can start from these alone.
        public var isComplete: Bool {
            !videoParameterSetIDs.isEmpty && !sequenceParameterSets.isEmpty && !pictureParameterSets.isEmpty
        }

        /// Takes in a VPS, SPS or PPS NAL unit (header included, no length prefix); any other
        /// type is ignored. Returns the type taken, nil for another type. A PPS naming an SPS
        /// that was never given is refused.
        @discardableResult
        public mutating func update(with nalUnit: some Collection<UInt8>) throws(CENCError) -> NALUnitType? {
            let header = try NALUnit(nalUnit: nalUnit)
            switch header.type {
            case .videoParameterSet:
                var reader = H264.BitReader(H264.RBSP(escaped: Array(nalUnit).dropFirst(2), limit: 4).bytes)
                videoParameterSetIDs.insert(Int(try reader.readBits(4)))
            case .sequenceParameterSet:
                let sps = try SequenceParameterSet(nalUnit: nalUnit)
                sequenceParameterSets[sps.id] = sps
            case .pictureParameterSet:
                let pps = try PictureParameterSet(nalUnit: nalUnit, sequenceParameterSets: sequenceParameterSets)
                pictureParameterSets[pps.id] = pps
            default:
                return nil
            }
            return header.type
        }

        /// The slice segment header of a VCL NAL unit (header included, no length prefix).
        public func sliceSegmentHeader(of nalUnit: some Collection<UInt8>) throws(CENCError) -> SliceSegmentHeader {
            try SliceSegmentHeader(nalUnit: nalUnit, parameterSets: self)
        }
    }
}
