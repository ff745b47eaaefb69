// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
// Sample entries (ISO/IEC 14496-12 §8.5.2, §12.1.3, §12.2.3). A protected entry (`encv`, `enca`)
// has the same layout as the clear one plus a `sinf` child naming the original format.

/// `avc1`, `avc3`, `hvc1`, `hev1`, `encv`: a visual sample entry and its child boxes (`avcC`,
/// `hvcC`, `sinf`, `pasp`, ...).
public struct VisualSampleEntry: MP4Box {
    public static let supportedTypes: [FourCC] = ["avc1", "avc3", "hvc1", "hev1", "encv"]
    public var format: FourCC = "avc1"
    public var boxType: FourCC { format }
    public var dataReferenceIndex: UInt16 = 1
    public var width: UInt16 = 0
    public var height: UInt16 = 0
    /// 16.16 pixels per inch; 72 dpi by default.
    public var horizontalResolution: UInt32 = 0x0048_0000
    public var verticalResolution: UInt32 = 0x0048_0000
    public var frameCount: UInt16 = 1
    /// 32 bytes: a length byte, the name, zero padding.
    public var compressorName: [UInt8] = Array(repeating: 0, count: 32)
    public var depth: UInt16 = 0x0018
    public var children = BoxList()

    public init() {}

    public init(format: FourCC = "avc1", width: UInt16, height: UInt16, children: BoxList) {
        self.format = format
        self.width = width
        self.height = height
        self.children = children
    }

    public var avcConfiguration: AVCConfigurationBox? {
        get { children.first(AVCConfigurationBox.self) }
        set { children.set(newValue) }
    }
    /// `hvcC` of an HEVC entry (`hvc1`, `hev1`).
    public var hevcConfiguration: HEVCConfigurationBox? {
        get { children.first(HEVCConfigurationBox.self) }
        set { children.set(newValue) }
    }
    public var protectionSchemeInfo: ProtectionSchemeInfoBox? {
        get { children.first(ProtectionSchemeInfoBox.self) }
        set { children.set(newValue) }
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        c.headerType(&format)
        try c.reserved(6)
        try c.uint16(&dataReferenceIndex)
        try c.reserved(2 + 2 + 12)  // pre_defined, reserved, pre_defined[3]
        try c.uint16(&width)
        try c.uint16(&height)
        try c.uint32(&horizontalResolution)
        try c.uint32(&verticalResolution)
        try c.reserved(4)
        try c.uint16(&frameCount)
        try c.bytes(&compressorName, count: 32, field: "compressorname")
        try c.uint16(&depth)
        try c.constant(0xFFFF, width: 2)  // pre_defined = -1
        try c.children(&children)
        if format == "encv" { try c.require([["sinf"]], in: children) }
    }
}

/// `mp4a`, `enca`, `ac-3`, `ec-3`: an audio sample entry and its children (`esds`, `sinf`, ...).
/// QuickTime sound description versions 1 and 2 (from .mov files) keep their extra fields as bytes.
public struct AudioSampleEntry: MP4Box {
    public static let supportedTypes: [FourCC] = ["mp4a", "enca", "ac-3", "ec-3"]
    public var format: FourCC = "mp4a"
    public var boxType: FourCC { format }
    public var dataReferenceIndex: UInt16 = 1
    /// 0 in ISO files; 1 or 2 in QuickTime sound descriptions.
    public var soundVersion: UInt16 = 0
    public var channelCount: UInt16 = 2
    public var sampleSize: UInt16 = 16
    /// 16.16 fixed point (the rate in the upper 16 bits).
    public var sampleRate: UInt32 = 0
    /// The 16 (version 1) or 36 (version 2) bytes of QuickTime fields after `samplerate`.
    public var quickTimeExtension: [UInt8] = []
    public var children = BoxList()

    public init() {}

    /// `sampleRate` in Hz; rates above 65535 Hz do not fit the field and are stored as 0, as the
    /// specification asks (the real rate then comes from the codec configuration).
    public init(format: FourCC = "mp4a", channelCount: UInt16, sampleRate: UInt32, children: BoxList) {
        self.format = format
        self.channelCount = channelCount
        self.sampleRate = sampleRate <= 0xFFFF ? sampleRate << 16 : 0
        self.children = children
    }

    /// The sampling rate in Hz (the integer part of `samplerate`).
    public var sampleRateHz: UInt32 { sampleRate >> 16 }

    public var elementaryStreamDescriptor: ESDBox? {
        get { children.first(ESDBox.self) }
        set { children.set(newValue) }
    }
    public var protectionSchemeInfo: ProtectionSchemeInfoBox? {
        get { children.first(ProtectionSchemeInfoBox.self) }
        set { children.set(newValue) }
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        c.headerType(&format)
        try c.reserved(6)
        try c.uint16(&dataReferenceIndex)
        try c.uint16(&soundVersion)
        try c.reserved(6)  // revision level, vendor
        try c.uint16(&channelCount)
        try c.uint16(&sampleSize)
        try c.reserved(4)  // pre_defined (compression id), reserved (packet size)
        try c.uint32(&sampleRate)
        let extensionSize: Int
        switch soundVersion {
        case 0: extensionSize = 0
        case 1: extensionSize = 16
        case 2: extensionSize = 36
        default: throw c.invalidField("version", "sound description version must be 0, 1 or 2")
        }
        try c.bytes(&quickTimeExtension, count: extensionSize, field: "sound description extension")
        try c.children(&children)
        if format == "enca" { try c.require([["sinf"]], in: children) }
    }
}

/// `avcC` (ISO/IEC 14496-15 §5.3.3): the AVCDecoderConfigurationRecord.
public struct AVCConfigurationBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["avcC"]
    public var boxType: FourCC { "avcC" }
    public var configurationVersion: UInt8 = 1
    public var profileIndication: UInt8 = 0
    public var profileCompatibility: UInt8 = 0
    public var levelIndication: UInt8 = 0
    /// NAL unit length field size minus one (3 for 4-byte lengths).
    public var lengthSizeMinusOne: UInt8 = 3
    /// Sequence parameter set NAL units, each without a length prefix.
    public var sequenceParameterSets: [[UInt8]] = []
    /// Picture parameter set NAL units.
    public var pictureParameterSets: [[UInt8]] = []
    /// Whatever follows the PPS list (the chroma and bit-depth fields of High profiles), as stored.
    public var trailingBytes: [UInt8] = []

    public init() {}

    public init(profileIndication: UInt8, profileCompatibility: UInt8, levelIndication: UInt8,
                lengthSizeMinusOne: UInt8 = 3, sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]],
                trailingBytes: [UInt8] = []) {
        self.profileIndication = profileIndication
        self.profileCompatibility = profileCompatibility
        self.levelIndication = levelIndication
        self.lengthSizeMinusOne = lengthSizeMinusOne
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.trailingBytes = trailingBytes
    }

    /// The NAL unit length size in bytes (1, 2 or 4).
    public var nalUnitLengthSize: Int { Int(lengthSizeMinusOne) + 1 }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            guard lengthSizeMinusOne <= 3, lengthSizeMinusOne != 2 else { throw c.invalidField("lengthSizeMinusOne") }
            guard sequenceParameterSets.count <= 31 else { throw c.invalidField("numOfSequenceParameterSets", "more than 31") }
        }
        try c.uint8(&configurationVersion)
        guard configurationVersion == 1 else { throw c.invalidField("configurationVersion", "must be 1") }
        try c.uint8(&profileIndication)
        try c.uint8(&profileCompatibility)
        try c.uint8(&levelIndication)
        var lengthByte = 0xFC | lengthSizeMinusOne
        try c.uint8(&lengthByte)
        lengthSizeMinusOne = lengthByte & 0x03
        if c.isReading, lengthSizeMinusOne == 2 { throw c.invalidField("lengthSizeMinusOne", "3-byte lengths are not allowed") }
        var spsCount = UInt8(sequenceParameterSets.count) | 0xE0
        try c.uint8(&spsCount)
        try c.elements(&sequenceParameterSets, count: Int(spsCount & 0x1F), minimumSize: 2,
                       field: "numOfSequenceParameterSets", make: { [] }, describeParameterSet)
        var ppsCount = UInt8(clamping: pictureParameterSets.count)
        if c.isWriting, pictureParameterSets.count > 255 { throw c.invalidField("numOfPictureParameterSets", "more than 255") }
        try c.uint8(&ppsCount)
        try c.elements(&pictureParameterSets, count: Int(ppsCount), minimumSize: 2,
                       field: "numOfPictureParameterSets", make: { [] }, describeParameterSet)
        try c.remainingBytes(&trailingBytes)
    }
}

private func describeParameterSet(_ c: inout BoxCoder, _ nal: inout [UInt8]) throws(MP4Error) {
    guard c.isReading || nal.count <= 0xFFFF else { throw c.invalidField("parameter set length", "over 65535 bytes") }
    var length = UInt16(truncatingIfNeeded: nal.count)
    try c.uint16(&length)
    try c.bytes(&nal, count: Int(length), field: "parameter set")
}
