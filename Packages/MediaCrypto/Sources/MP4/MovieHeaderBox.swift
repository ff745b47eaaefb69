/// The unity transformation matrix of `mvhd` and `tkhd` (16.16 and 2.30 fixed point).
public let unityMatrix: [Int32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

/// `mvhd` (§8.2.2). Version 1 is chosen on write when a time does not fit 32 bits.
public struct MovieHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["mvhd"]
    public var boxType: FourCC { "mvhd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var timescale: UInt32 = 1000
    public var duration: UInt64 = 0
    /// 16.16 fixed point; 0x00010000 is normal rate.
    public var rate: Int32 = 0x0001_0000
    /// 8.8 fixed point; 0x0100 is full volume.
    public var volume: Int16 = 0x0100
    public var matrix: [Int32] = unityMatrix
    public var nextTrackID: UInt32 = 1

    public init() {}

    public init(timescale: UInt32, duration: UInt64, nextTrackID: UInt32) {
        self.timescale = timescale
        self.duration = duration
        self.nextTrackID = nextTrackID
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
        try c.int32(&rate)
        try c.int16(&volume)
        try c.reserved(2 + 8)
        try describeMatrix(&matrix, &c)
        try c.reserved(24)  // pre_defined
        try c.uint32(&nextTrackID)
        if c.isReading, timescale == 0 { throw c.invalidField("timescale", "must not be 0") }
    }
}

func describeMatrix(_ matrix: inout [Int32], _ c: inout BoxCoder) throws(MP4Error) {
    if c.isWriting, matrix.count != 9 { throw c.invalidField("matrix", "must have 9 values") }
    try c.elements(&matrix, count: 9, minimumSize: 4, field: "matrix", make: { 0 }) { (c, value) throws(MP4Error) in
        try c.int32(&value)
    }
}

/// `tkhd` (§8.3.2). Flags: 1 enabled, 2 in movie, 4 in preview.
public struct TrackHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["tkhd"]
    public var boxType: FourCC { "tkhd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0x3
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var trackID: UInt32 = 1
    public var duration: UInt64 = 0
    public var layer: Int16 = 0
    public var alternateGroup: Int16 = 0
    /// 8.8 fixed point: 0x0100 for audio, 0 for video.
    public var volume: Int16 = 0
    public var matrix: [Int32] = unityMatrix
    /// 16.16 fixed point.
    public var width: UInt32 = 0
    /// 16.16 fixed point.
    public var height: UInt32 = 0

    public init() {}

    public init(trackID: UInt32, duration: UInt64, width: UInt32 = 0, height: UInt32 = 0, volume: Int16 = 0) {
        self.trackID = trackID
        self.duration = duration
        self.width = width
        self.height = height
        self.volume = volume
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            if max(creationTime, modificationTime, duration) > UInt64(UInt32.max) { version = max(version, 1) }
            guard trackID != 0 else { throw c.invalidField("track_ID", "must not be 0") }
        }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        let wide = version == 1
        try c.uint(&creationTime, wide: wide, field: "creation_time")
        try c.uint(&modificationTime, wide: wide, field: "modification_time")
        try c.uint32(&trackID)
        if c.isReading { c.contextTrackID = trackID }
        try c.reserved(4)
        try c.uint(&duration, wide: wide, field: "duration")
        try c.reserved(8)
        try c.int16(&layer)
        try c.int16(&alternateGroup)
        try c.int16(&volume)
        try c.reserved(2)
        try describeMatrix(&matrix, &c)
        try c.uint32(&width)
        try c.uint32(&height)
        if c.isReading, trackID == 0 { throw c.invalidField("track_ID", "must not be 0") }
    }
}

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

/// `elst` (§8.6.6). Version 1 is chosen on write when a value does not fit 32 bits.
public struct EditListBox: MP4Box {
    public struct Entry: Sendable, Equatable {
        public var segmentDuration: UInt64
        /// -1 is an empty edit.
        public var mediaTime: Int64
        public var mediaRateInteger: Int16
        public var mediaRateFraction: Int16

        public init(segmentDuration: UInt64, mediaTime: Int64, mediaRateInteger: Int16 = 1, mediaRateFraction: Int16 = 0) {
            self.segmentDuration = segmentDuration
            self.mediaTime = mediaTime
            self.mediaRateInteger = mediaRateInteger
            self.mediaRateFraction = mediaRateFraction
        }
    }

    public static let supportedTypes: [FourCC] = ["elst"]
    public var boxType: FourCC { "elst" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var entries: [Entry] = []

    public init() {}
    public init(entries: [Entry]) { self.entries = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting, entries.contains(where: { $0.segmentDuration > UInt64(UInt32.max) || Int32(exactly: $0.mediaTime) == nil }) {
            version = max(version, 1)
        }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        let wide = version == 1
        try c.entries(&entries, minimumSize: wide ? 20 : 12, make: { Entry(segmentDuration: 0, mediaTime: 0) }) { (c, e) throws(MP4Error) in
            try c.uint(&e.segmentDuration, wide: wide, field: "segment_duration")
            try c.int(&e.mediaTime, wide: wide, field: "media_time")
            try c.int16(&e.mediaRateInteger)
            try c.int16(&e.mediaRateFraction)
        }
    }
}

/// `dref` (§8.7.2).
public struct DataReferenceBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["dref"]
    public var boxType: FourCC { "dref" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// `url ` entries (and any other kept byte for byte).
    public var entries: BoxList = [DataEntryUrlBox()]

    public init() {}
    public init(entries: BoxList) { self.entries = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        var n = entries.count
        try c.count(&n, width: 4, minimumSize: 8, field: "entry_count")
        try c.boxes(&entries, count: n, field: "entry_count")
    }
}

/// `url ` (§8.7.2). Flag 1: the media is in the same file and `location` is absent.
public struct DataEntryUrlBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["url "]
    public var boxType: FourCC { "url " }
    public var version: UInt8 = 0
    public var flags: UInt32 = 1
    /// The location string as stored (UTF-8 with its NUL); empty when self-contained.
    public var location: [UInt8] = []

    public init() {}

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.remainingBytes(&location)
    }
}
