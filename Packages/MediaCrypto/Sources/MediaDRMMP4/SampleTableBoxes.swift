// The sample tables of `stbl` (ISO/IEC 14496-12 §8.5–§8.7).

/// `stsd` (§8.5.2): the sample entries (`avc1`, `mp4a`, `encv`, `enca`, or kept byte for byte).
public struct SampleDescriptionBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["stsd"]
    public var boxType: FourCC { "stsd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var children = BoxList()

    public init() {}
    public init(entries: BoxList) { children = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        var n = children.count
        try c.count(&n, width: 4, minimumSize: 8, field: "entry_count")
        try c.boxes(&children, count: n, field: "entry_count")
    }
}

/// `stts` (§8.6.1.2).
public struct TimeToSampleBox: MP4Box {
    public struct Entry: Sendable, Equatable {
        public var sampleCount: UInt32
        public var sampleDelta: UInt32
        public init(sampleCount: UInt32, sampleDelta: UInt32) { self.sampleCount = sampleCount; self.sampleDelta = sampleDelta }
    }

    public static let supportedTypes: [FourCC] = ["stts"]
    public var boxType: FourCC { "stts" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var entries: [Entry] = []

    public init() {}
    public init(entries: [Entry]) { self.entries = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.entries(&entries, minimumSize: 8, make: { Entry(sampleCount: 0, sampleDelta: 0) }) { (c, e) throws(MP4Error) in
            try c.uint32(&e.sampleCount)
            try c.uint32(&e.sampleDelta)
        }
    }
}

/// `ctts` (§8.6.1.3). Version 0 offsets are unsigned, version 1 signed; version 1 is chosen on
/// write when an offset is negative.
public struct CompositionOffsetBox: MP4Box {
    public struct Entry: Sendable, Equatable {
        public var sampleCount: UInt32
        public var sampleOffset: Int64
        public init(sampleCount: UInt32, sampleOffset: Int64) { self.sampleCount = sampleCount; self.sampleOffset = sampleOffset }
    }

    public static let supportedTypes: [FourCC] = ["ctts"]
    public var boxType: FourCC { "ctts" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var entries: [Entry] = []

    public init() {}
    public init(entries: [Entry]) { self.entries = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting, entries.contains(where: { $0.sampleOffset < 0 }) { version = max(version, 1) }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        let signed = version == 1
        try c.entries(&entries, minimumSize: 8, make: { Entry(sampleCount: 0, sampleOffset: 0) }) { (c, e) throws(MP4Error) in
            try c.uint32(&e.sampleCount)
            try describeSampleOffset(&e.sampleOffset, signed: signed, field: "sample_offset", &c)
        }
    }
}

/// A 32-bit composition offset, unsigned (version 0) or signed (version 1), held as Int64.
func describeSampleOffset(_ offset: inout Int64, signed: Bool, field: String, _ c: inout BoxCoder) throws(MP4Error) {
    if signed {
        try c.int(&offset, wide: false, field: field)
    } else {
        guard let narrow = UInt32(exactly: c.isWriting ? offset : 0) else {
            throw c.invalidField(field, "does not fit an unsigned 32-bit offset")
        }
        var v = narrow
        try c.uint32(&v)
        offset = Int64(v)
    }
}

/// `stss` (§8.6.2).
public struct SyncSampleBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["stss"]
    public var boxType: FourCC { "stss" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    /// 1-based sample numbers.
    public var sampleNumbers: [UInt32] = []

    public init() {}
    public init(sampleNumbers: [UInt32]) { self.sampleNumbers = sampleNumbers }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.entries(&sampleNumbers, minimumSize: 4, make: { 0 }) { (c, n) throws(MP4Error) in try c.uint32(&n) }
    }
}

/// `stsc` (§8.7.4).
public struct SampleToChunkBox: MP4Box {
    public struct Entry: Sendable, Equatable {
        public var firstChunk: UInt32
        public var samplesPerChunk: UInt32
        public var sampleDescriptionIndex: UInt32
        public init(firstChunk: UInt32, samplesPerChunk: UInt32, sampleDescriptionIndex: UInt32) {
            self.firstChunk = firstChunk
            self.samplesPerChunk = samplesPerChunk
            self.sampleDescriptionIndex = sampleDescriptionIndex
        }
    }

    public static let supportedTypes: [FourCC] = ["stsc"]
    public var boxType: FourCC { "stsc" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var entries: [Entry] = []

    public init() {}
    public init(entries: [Entry]) { self.entries = entries }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.entries(&entries, minimumSize: 12, make: { Entry(firstChunk: 0, samplesPerChunk: 0, sampleDescriptionIndex: 0) }) {
            (c, e) throws(MP4Error) in
            try c.uint32(&e.firstChunk)
            try c.uint32(&e.samplesPerChunk)
            try c.uint32(&e.sampleDescriptionIndex)
        }
    }
}

/// `stsz` (§8.7.3.2). With a non-zero `sampleSize` every sample has that size and `entrySizes`
/// is empty; with 0, `entrySizes` lists each sample and `sampleCount` equals its count.
public struct SampleSizeBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["stsz"]
    public var boxType: FourCC { "stsz" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var sampleSize: UInt32 = 0
    public var sampleCount: UInt32 = 0
    public var entrySizes: [UInt32] = []

    public init() {}

    /// Per-sample sizes.
    public init(entrySizes: [UInt32]) {
        self.entrySizes = entrySizes
        sampleCount = UInt32(clamping: entrySizes.count)
    }

    /// Every sample the same size.
    public init(sampleSize: UInt32, sampleCount: UInt32) {
        self.sampleSize = sampleSize
        self.sampleCount = sampleCount
    }

    /// The size of the sample at 0-based `index`, nil past the end.
    public func size(ofSample index: Int) -> UInt32? {
        guard index >= 0, index < Int(sampleCount) else { return nil }
        if sampleSize != 0 { return sampleSize }
        return index < entrySizes.count ? entrySizes[index] : nil
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting {
            if sampleSize != 0, !entrySizes.isEmpty { throw c.invalidField("entry_size", "must be empty when sample_size is set") }
            if sampleSize == 0, Int(sampleCount) != entrySizes.count { throw c.invalidField("sample_count", "differs from the entries") }
        }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.uint32(&sampleSize)
        try c.uint32(&sampleCount)
        if sampleSize == 0 {
            try c.elements(&entrySizes, count: Int(sampleCount), minimumSize: 4, field: "sample_count", make: { 0 }) {
                (c, n) throws(MP4Error) in try c.uint32(&n)
            }
        }
    }
}

/// `stco` (§8.7.5).
public struct ChunkOffsetBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["stco"]
    public var boxType: FourCC { "stco" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var chunkOffsets: [UInt32] = []

    public init() {}
    public init(chunkOffsets: [UInt32]) { self.chunkOffsets = chunkOffsets }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.entries(&chunkOffsets, minimumSize: 4, make: { 0 }) { (c, n) throws(MP4Error) in try c.uint32(&n) }
    }
}

/// `co64` (§8.7.5).
public struct ChunkLargeOffsetBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["co64"]
    public var boxType: FourCC { "co64" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var chunkOffsets: [UInt64] = []

    public init() {}
    public init(chunkOffsets: [UInt64]) { self.chunkOffsets = chunkOffsets }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.entries(&chunkOffsets, minimumSize: 8, make: { 0 }) { (c, n) throws(MP4Error) in try c.uint64(&n) }
    }
}
