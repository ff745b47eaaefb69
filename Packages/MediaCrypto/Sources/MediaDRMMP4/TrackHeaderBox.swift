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
