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
