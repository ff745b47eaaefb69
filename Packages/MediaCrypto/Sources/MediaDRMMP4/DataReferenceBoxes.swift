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
