/// ITU-T H.265 (ISO/IEC 23008-2) syntax, as far as packaging HEVC needs it: NAL units in
/// length-prefixed samples, the parameter sets (VPS, SPS, PPS) with the SPS's
/// `profile_tier_level()`, and which pictures a segment may start at (IRAP pictures).
public enum HEVC {
    /// `nal_unit_type` values (Table 7-1) this module names.
    public enum NALUnitType: UInt8, Sendable {
        case brokenLinkAccessWithLeadingPictures = 16
        case brokenLinkAccessWithRADL = 17
        case brokenLinkAccessNoLeadingPictures = 18
        case instantaneousDecodingRefreshWithRADL = 19
        case instantaneousDecodingRefreshNoLeadingPictures = 20
        case cleanRandomAccess = 21
        case videoParameterSet = 32
        case sequenceParameterSet = 33
        case pictureParameterSet = 34
        case accessUnitDelimiter = 35
        case endOfSequence = 36
        case endOfBitstream = 37
        case fillerData = 38
        case prefixSEI = 39
        case suffixSEI = 40
    }

    /// Types 0 ... 31 are video coding layer NAL units (§7.4.2.2).
    public static let videoCodingLayerTypes: ClosedRange<UInt8> = 0 ... 31
    /// Types 16 ... 23 are intra random access point pictures (BLA, IDR, CRA and the reserved
    /// IRAP types): decoding can start there.
    public static let randomAccessTypes: ClosedRange<UInt8> = 16 ... 23
    /// The parameter set types, in the order a decoder needs them.
    public static let parameterSetTypes: [NALUnitType] = [.videoParameterSet, .sequenceParameterSet, .pictureParameterSet]
}
