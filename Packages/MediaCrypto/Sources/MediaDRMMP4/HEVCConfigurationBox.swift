/// `hvcC` (ISO/IEC 14496-15 §8.3.3.1): the HEVCDecoderConfigurationRecord of an `hvc1` or `hev1`
/// sample entry. The profile, tier and level fields repeat the SPS's `profile_tier_level()`
/// (ITU-T H.265 §7.3.3) and are what the `CODECS` string is made from; the arrays carry the
/// parameter sets (VPS, SPS, PPS) and SEI NAL units. Reserved bits are skipped when reading and
/// written as ones, as the record fixes them.
public struct HEVCConfigurationBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["hvcC"]
    public var boxType: FourCC { "hvcC" }

    /// One array of NAL units of one type (`NAL_unit_type`, 6 bits).
    public struct NALUnitArray: Sendable, Equatable {
        /// Set when every NAL unit of this type is in the array and none is in band (§8.3.3.1.3:
        /// 1 for the parameter set arrays of `hvc1`).
        public var arrayCompleteness: Bool
        public var nalUnitType: UInt8
        /// The NAL units, each with its two-byte header and without a length prefix.
        public var nalUnits: [[UInt8]]

        public init(arrayCompleteness: Bool, nalUnitType: UInt8, nalUnits: [[UInt8]]) {
            self.arrayCompleteness = arrayCompleteness
            self.nalUnitType = nalUnitType
            self.nalUnits = nalUnits
        }
    }

    public var configurationVersion: UInt8 = 1
    /// `general_profile_space` (0 ... 3).
    public var generalProfileSpace: UInt8 = 0
    /// `general_tier_flag`: false Main tier, true High tier.
    public var generalTierFlag = false
    /// `general_profile_idc` (0 ... 31): 1 Main, 2 Main 10, 3 Main Still Picture, 4 range extensions, ...
    public var generalProfileIDC: UInt8 = 0
    /// `general_profile_compatibility_flag[j]`, flag 0 in the most significant bit.
    public var generalProfileCompatibilityFlags: UInt32 = 0
    /// The 48 bits from `general_progressive_source_flag` on, as six bytes.
    public var generalConstraintIndicatorFlags: [UInt8] = Array(repeating: 0, count: 6)
    /// `general_level_idc`: 30 times the level (93 is level 3.1).
    public var generalLevelIDC: UInt8 = 0
    /// `min_spatial_segmentation_idc` (12 bits).
    public var minSpatialSegmentationIDC: UInt16 = 0
    /// `parallelismType` (2 bits).
    public var parallelismType: UInt8 = 0
    /// `chroma_format_idc` (2 bits).
    public var chromaFormatIDC: UInt8 = 1
    public var bitDepthLumaMinus8: UInt8 = 0
    public var bitDepthChromaMinus8: UInt8 = 0
    /// Frames per 256 seconds; 0 unspecified.
    public var averageFrameRate: UInt16 = 0
    /// `constantFrameRate` (2 bits), `numTemporalLayers` (3 bits), `temporalIdNested` (1 bit).
    public var constantFrameRate: UInt8 = 0
    public var numberOfTemporalLayers: UInt8 = 0
    public var temporalIDNested = false
    /// NAL unit length field size minus one (0, 1 or 3).
    public var lengthSizeMinusOne: UInt8 = 3
    public var arrays: [NALUnitArray] = []
    /// Whatever follows the arrays, as stored.
    public var trailingBytes: [UInt8] = []

    /// The smallest array: one byte of completeness and type, a two-byte count.
    static let minimumArraySize = 3
    /// The smallest NAL unit entry: its two-byte length and a two-byte NAL unit header.
    static let minimumNALUnitEntrySize = 4

    public init() {}

    /// The NAL unit length size in bytes (1, 2 or 4).
    public var nalUnitLengthSize: Int { Int(lengthSizeMinusOne) + 1 }

    /// Every NAL unit of `type` in the arrays, in order.
    public func nalUnits(ofType type: UInt8) -> [[UInt8]] {
        arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits)
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            guard lengthSizeMinusOne <= 3, lengthSizeMinusOne != 2 else { throw c.invalidField("lengthSizeMinusOne") }
            guard generalProfileSpace <= 3, generalProfileIDC <= 31 else { throw c.invalidField("general_profile_idc") }
            guard arrays.count <= 255 else { throw c.invalidField("numOfArrays", "more than 255") }
        }
        try c.uint8(&configurationVersion)
        guard configurationVersion == 1 else { throw c.invalidField("configurationVersion", "must be 1") }
        var profileByte = generalProfileSpace << 6 | (generalTierFlag ? 0x20 : 0) | generalProfileIDC
        try c.uint8(&profileByte)
        generalProfileSpace = profileByte >> 6
        generalTierFlag = profileByte & 0x20 != 0
        generalProfileIDC = profileByte & 0x1F
        try c.uint32(&generalProfileCompatibilityFlags)
        try c.bytes(&generalConstraintIndicatorFlags, count: 6, field: "general_constraint_indicator_flags")
        try c.uint8(&generalLevelIDC)
        var segmentation = 0xF000 | minSpatialSegmentationIDC
        try c.uint16(&segmentation)
        minSpatialSegmentationIDC = segmentation & 0x0FFF
        try Self.packed(&c, &parallelismType, reservedMask: 0xFC, valueMask: 0x03)
        try Self.packed(&c, &chromaFormatIDC, reservedMask: 0xFC, valueMask: 0x03)
        try Self.packed(&c, &bitDepthLumaMinus8, reservedMask: 0xF8, valueMask: 0x07)
        try Self.packed(&c, &bitDepthChromaMinus8, reservedMask: 0xF8, valueMask: 0x07)
        try c.uint16(&averageFrameRate)
        var layering = (constantFrameRate & 0x03) << 6 | (numberOfTemporalLayers & 0x07) << 3
            | (temporalIDNested ? 0x04 : 0) | (lengthSizeMinusOne & 0x03)
        try c.uint8(&layering)
        constantFrameRate = layering >> 6
        numberOfTemporalLayers = (layering >> 3) & 0x07
        temporalIDNested = layering & 0x04 != 0
        lengthSizeMinusOne = layering & 0x03
        if c.isReading, lengthSizeMinusOne == 2 { throw c.invalidField("lengthSizeMinusOne", "3-byte lengths are not allowed") }
        var arrayCount = UInt8(clamping: arrays.count)
        try c.uint8(&arrayCount)
        try c.elements(&arrays, count: Int(arrayCount), minimumSize: Self.minimumArraySize, field: "numOfArrays",
                       make: { NALUnitArray(arrayCompleteness: false, nalUnitType: 0, nalUnits: []) }, describeArray)
        try c.remainingBytes(&trailingBytes)
    }

    /// A byte whose high bits are reserved ones and whose low bits hold `value`.
    private static func packed(_ c: inout BoxCoder, _ value: inout UInt8, reservedMask: UInt8, valueMask: UInt8) throws(MP4Error) {
        var byte = reservedMask | (value & valueMask)
        try c.uint8(&byte)
        value = byte & valueMask
    }
}

private func describeArray(_ c: inout BoxCoder, _ array: inout HEVCConfigurationBox.NALUnitArray) throws(MP4Error) {
    if c.isWriting {
        guard array.nalUnitType <= 63 else { throw c.invalidField("NAL_unit_type", "over 63") }
        guard array.nalUnits.count <= 0xFFFF else { throw c.invalidField("numNalus", "more than 65535") }
    }
    var typeByte = (array.arrayCompleteness ? 0x80 : 0) | (array.nalUnitType & 0x3F)
    try c.uint8(&typeByte)
    array.arrayCompleteness = typeByte & 0x80 != 0
    array.nalUnitType = typeByte & 0x3F
    var count = UInt16(truncatingIfNeeded: array.nalUnits.count)
    try c.uint16(&count)
    try c.elements(&array.nalUnits, count: Int(count), minimumSize: HEVCConfigurationBox.minimumNALUnitEntrySize,
                   field: "numNalus", make: { [] }) { (c: inout BoxCoder, nal: inout [UInt8]) throws(MP4Error) in
        guard c.isReading || nal.count <= 0xFFFF else { throw c.invalidField("nalUnitLength", "over 65535 bytes") }
        var length = UInt16(truncatingIfNeeded: nal.count)
        try c.uint16(&length)
        guard length >= 2 else { throw c.invalidField("nalUnitLength", "shorter than the two-byte NAL unit header") }
        try c.bytes(&nal, count: Int(length), field: "nalUnit")
    }
}
