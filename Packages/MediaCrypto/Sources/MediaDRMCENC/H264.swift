// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// ITU-T H.264 (ISO/IEC 14496-10) syntax, as far as `cbcs` needs it: NAL units in
/// length-prefixed samples, parameter sets and slice headers, so that each slice NAL unit can be
/// left clear exactly through its slice header.
public enum H264 {
    /// `nal_unit_type` values (Table 7-1) this module names.
    public enum NALUnitType: UInt8, Sendable {
        case nonIDRSlice = 1
        case sliceDataPartitionA = 2
        case sliceDataPartitionB = 3
        case sliceDataPartitionC = 4
        case idrSlice = 5
        case supplementalEnhancementInformation = 6
        case sequenceParameterSet = 7
        case pictureParameterSet = 8
        case accessUnitDelimiter = 9
        case endOfSequence = 10
        case endOfStream = 11
        case fillerData = 12
        case sequenceParameterSetExtension = 13
        case prefix = 14
        case subsetSequenceParameterSet = 15
        case depthParameterSet = 16
        case auxiliarySlice = 19
        case sliceExtension = 20
        case depthOrTextureViewSliceExtension = 21
    }

    /// `profile_idc` values whose SPS carries `chroma_format_idc`, bit depths and scaling
    /// matrices (the High profiles and the scalable/multiview ones, §7.3.2.1.1).
    static let highProfileIDCs: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]
}
