import MediaDRMMP4

/// Reads the samples of an HEVC track (`hvc1` or `hev1`) in decode order: which ones a segment
/// may start at, and the parameter sets they carry in band. Every SPS, from `hvcC` or in band,
/// must agree with the `hvcC` record's profile, tier and level, since the `CODECS` string is
/// made from the record (ISO/IEC 14496-15 §8.3.3.1.3: the record's level is at least every
/// parameter set's).
public struct HEVCSampleAnalyzer: Sendable {
    /// What one sample is.
    public struct Sample: Sendable, Equatable {
        /// Its first picture is an IRAP picture (IDR, CRA or BLA: `nal_unit_type` 16 ... 23).
        public var isRandomAccessPoint: Bool
        /// An IRAP picture that a decoder can start from with nothing before it: the parameter
        /// sets are in `hvcC` or in band in this sample.
        public var startsIndependently: Bool
        /// The parameter set types this sample carries in band.
        public var inBandParameterSets: Set<UInt8>
    }

    public let configuration: HEVCConfigurationBox
    public private(set) var parameterSets: HEVC.ParameterSets
    private let configurationIsComplete: Bool

    public init(configuration: HEVCConfigurationBox) throws(CENCError) {
        self.configuration = configuration
        parameterSets = try HEVC.ParameterSets(configuration: configuration)
        configurationIsComplete = parameterSets.isComplete
        for sps in parameterSets.sequenceParameterSets.values { try Self.checkAgreement(sps, configuration) }
    }

    /// The general profile, tier and level the `hvcC` record declares.
    public static func declaredProfile(_ configuration: HEVCConfigurationBox) -> HEVC.ProfileTierLevel {
        HEVC.ProfileTierLevel(profileSpace: configuration.generalProfileSpace, tierFlag: configuration.generalTierFlag,
                              profileIDC: configuration.generalProfileIDC,
                              compatibilityFlags: configuration.generalProfileCompatibilityFlags,
                              constraintIndicatorFlags: configuration.generalConstraintIndicatorFlags,
                              levelIDC: configuration.generalLevelIDC)
    }

    static func checkAgreement(_ sps: HEVC.SequenceParameterSet, _ configuration: HEVCConfigurationBox) throws(CENCError) {
        let declared = declaredProfile(configuration)
        let actual = sps.profileTierLevel
        guard actual.profileSpace == declared.profileSpace, actual.profileIDC == declared.profileIDC else {
            throw CENCError(.invalidValue,
                            "SPS \(sps.id) has profile \(actual.profileIDC) (space \(actual.profileSpace)) but hvcC declares \(declared.profileIDC) (space \(declared.profileSpace))")
        }
        let higherTier = actual.tierFlag && !declared.tierFlag
        let higherLevel = actual.tierFlag == declared.tierFlag && actual.levelIDC > declared.levelIDC
        guard !higherTier, !higherLevel else {
            throw CENCError(.invalidValue,
                            "SPS \(sps.id) has \(actual.tierFlag ? "High" : "Main") tier level_idc \(actual.levelIDC), above hvcC's \(declared.tierFlag ? "High" : "Main") tier level_idc \(declared.levelIDC)")
        }
    }

    /// Reads one sample: its NAL units, any parameter sets in band (taken in, checked against
    /// `hvcC`), and whether its first picture is a random access point.
    public mutating func analyze(_ sample: [UInt8]) throws(CENCError) -> Sample {
        let units = try HEVC.NALUnit.split(sample, lengthSize: configuration.nalUnitLengthSize)
        var inBand: Set<UInt8> = []
        var firstPicture: HEVC.NALUnit?
        for unit in units {
            if unit.isVideoCodingLayer {
                if firstPicture == nil { firstPicture = unit }
                continue
            }
            guard let taken = try parameterSets.update(with: sample[unit.range]) else { continue }
            if firstPicture == nil { inBand.insert(taken.rawValue) }
            if taken == .sequenceParameterSet {
                try Self.checkAgreement(try HEVC.SequenceParameterSet(nalUnit: sample[unit.range]), configuration)
            }
        }
        guard let firstPicture else { throw CENCError(.invalidNALUnit, "the sample holds no coded picture (no VCL NAL unit)") }
        let all = Set(HEVC.parameterSetTypes.map(\.rawValue))
        let isRAP = firstPicture.isRandomAccessPoint
        return Sample(isRandomAccessPoint: isRAP, startsIndependently: isRAP && (configurationIsComplete || all.isSubset(of: inBand)),
                      inBandParameterSets: inBand)
    }
}
