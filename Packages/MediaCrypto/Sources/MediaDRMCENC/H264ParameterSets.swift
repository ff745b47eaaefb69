import MediaDRMMP4

extension H264 {
    /// The SPSs and PPSs in force for a track: from `avcC` first, then replaced by any that
    /// arrive in band (ids are the keys; a later set with the same id replaces the earlier one).
    public struct ParameterSets: Sendable, Equatable {
        public private(set) var sequenceParameterSets: [Int: SequenceParameterSet] = [:]
        public private(set) var pictureParameterSets: [Int: PictureParameterSet] = [:]

        public init() {}

        /// Parses each SPS, then each PPS (NAL units with their header byte, no length prefix).
        public init(sequenceParameterSets sps: [[UInt8]], pictureParameterSets pps: [[UInt8]]) throws(CENCError) {
            for nal in sps { try add(sequenceParameterSet: nal) }
            for nal in pps { try add(pictureParameterSet: nal) }
        }

        /// The parameter sets of an `avcC` box.
        public init(avcConfiguration: AVCConfigurationBox) throws(CENCError) {
            try self.init(sequenceParameterSets: avcConfiguration.sequenceParameterSets,
                          pictureParameterSets: avcConfiguration.pictureParameterSets)
        }

        public mutating func add(sequenceParameterSet nalUnit: some Collection<UInt8>) throws(CENCError) {
            let sps = try SequenceParameterSet(nalUnit: nalUnit)
            sequenceParameterSets[sps.id] = sps
        }

        public mutating func add(pictureParameterSet nalUnit: some Collection<UInt8>) throws(CENCError) {
            let pps = try PictureParameterSet(nalUnit: nalUnit, sequenceParameterSets: sequenceParameterSets)
            pictureParameterSets[pps.id] = pps
        }

        /// Takes in an SPS or PPS NAL unit; any other type is ignored. Returns whether it was one.
        @discardableResult
        public mutating func update(with nalUnit: some Collection<UInt8>) throws(CENCError) -> Bool {
            guard let header = nalUnit.first else { return false }
            switch header & 0x1F {
            case NALUnitType.sequenceParameterSet.rawValue:
                try add(sequenceParameterSet: nalUnit)
                return true
            case NALUnitType.pictureParameterSet.rawValue:
                try add(pictureParameterSet: nalUnit)
                return true
            default:
                return false
            }
        }

        /// The slice header of a slice NAL unit (header byte included).
        public func sliceHeader(of nalUnit: some Collection<UInt8>) throws(CENCError) -> SliceHeader {
            try SliceHeader(nalUnit: nalUnit, parameterSets: self)
        }
    }
}
