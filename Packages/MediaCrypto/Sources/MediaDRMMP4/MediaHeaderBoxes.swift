// Media-level headers: `mdhd`, `hdlr`, and the media-type headers `vmhd` and `smhd`.

/// `mdhd` (§8.4.2).
public struct MediaHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["mdhd"]
    public var boxType: FourCC { "mdhd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var timescale: UInt32 = 1000
    public var duration: UInt64 = 0
    /// The packed field as stored: a pad bit and three 5-bit letters (ISO 639-2/T code minus 0x60).
    public var packedLanguage: UInt16 = 0x55C4  // "und"

    public init() {}

    public init(timescale: UInt32, duration: UInt64, language: String = "und") {
        self.timescale = timescale
        self.duration = duration
        self.language = language
    }

    /// The three-letter language code. Setting anything other than three letters a–z stores "und".
    public var language: String {
        get {
            let letters = [(packedLanguage >> 10) & 0x1F, (packedLanguage >> 5) & 0x1F, packedLanguage & 0x1F]
            return String(decoding: letters.map { UInt8($0) + 0x60 }, as: UTF8.self)
        }
        set {
            let bytes = Array(newValue.utf8)
            guard bytes.count == 3, bytes.allSatisfy({ (0x61 ... 0x7A).contains($0) }) else { packedLanguage = 0x55C4; return }
            packedLanguage = bytes.reduce(0) { $0 << 5 | UInt16($1 - 0x60) }
        }
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            if max(creationTime, modificationTime, duration) > UInt64(UInt32.max) { version = max(version, 1) }
            guard timescale != 0 else { throw c.invalidField("timescale", "must not be 0") }
        }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        let wide = version == 1
        try c.uint(&creationTime, wide: wide, field: "creation_time")
        try c.uint(&modificationTime, wide: wide, field: "modification_time")
        try c.uint32(&timescale)
        try c.uint(&duration, wide: wide, field: "duration")
        try c.uint16(&packedLanguage)
        try c.reserved(2)  // pre_defined
        if c.isReading, timescale == 0 { throw c.invalidField("timescale", "must not be 0") }
    }
}

/// `hdlr` (§8.4.3).
public struct HandlerBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["hdlr"]
    public var boxType: FourCC { "hdlr" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// `vide`, `soun`, ...
    public var handlerType: FourCC = "vide"
    /// The name field exactly as stored (normally UTF-8 with a terminating NUL).
    public var nameBytes: [UInt8] = [0]

    public init() {}

    public init(handlerType: FourCC, name: String) {
        self.handlerType = handlerType
        self.name = name
    }

    /// The name without its terminating NUL; setting it stores UTF-8 plus a NUL.
    public var name: String {
        get {
            let end = nameBytes.firstIndex(of: 0) ?? nameBytes.count
            return String(decoding: nameBytes[..<end], as: UTF8.self)
        }
        set { nameBytes = Array(newValue.utf8) + [0] }
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.reserved(4)  // pre_defined
        try c.fourCC(&handlerType)
        try c.reserved(12)
        try c.remainingBytes(&nameBytes)
    }
}

/// `vmhd` (§12.1.2).
public struct VideoMediaHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["vmhd"]
    public var boxType: FourCC { "vmhd" }
    public var version: UInt8 = 0
    /// The specification fixes flags to 1.
    public var flags: UInt32 = 1
    public var graphicsMode: UInt16 = 0
    public var opcolor: [UInt16] = [0, 0, 0]

    public init() {}

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.uint16(&graphicsMode)
        if c.isWriting, opcolor.count != 3 { throw c.invalidField("opcolor", "must have 3 values") }
        try c.elements(&opcolor, count: 3, minimumSize: 2, field: "opcolor", make: { 0 }) { (c, v) throws(MP4Error) in
            try c.uint16(&v)
        }
    }
}

/// `smhd` (§12.2.2).
public struct SoundMediaHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["smhd"]
    public var boxType: FourCC { "smhd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// 8.8 fixed point, 0 is centre.
    public var balance: Int16 = 0

    public init() {}

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.int16(&balance)
        try c.reserved(2)
    }
}
