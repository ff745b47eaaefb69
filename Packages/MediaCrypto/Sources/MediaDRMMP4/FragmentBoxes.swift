// Movie fragment boxes (ISO/IEC 14496-12 §8.8). Optional fields are Swift optionals; the flags
// that announce them are derived from the optionals on write and checked on read.

/// `trex` (§8.8.3).
public struct TrackExtendsBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["trex"]
    public var boxType: FourCC { "trex" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var trackID: UInt32 = 1
    public var defaultSampleDescriptionIndex: UInt32 = 1
    public var defaultSampleDuration: UInt32 = 0
    public var defaultSampleSize: UInt32 = 0
    public var defaultSampleFlags: UInt32 = 0

    public init() {}
    public init(trackID: UInt32, defaultSampleDescriptionIndex: UInt32 = 1, defaultSampleDuration: UInt32 = 0,
                defaultSampleSize: UInt32 = 0, defaultSampleFlags: UInt32 = 0) {
        self.trackID = trackID
        self.defaultSampleDescriptionIndex = defaultSampleDescriptionIndex
        self.defaultSampleDuration = defaultSampleDuration
        self.defaultSampleSize = defaultSampleSize
        self.defaultSampleFlags = defaultSampleFlags
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.uint32(&trackID)
        try c.uint32(&defaultSampleDescriptionIndex)
        try c.uint32(&defaultSampleDuration)
        try c.uint32(&defaultSampleSize)
        try c.uint32(&defaultSampleFlags)
    }
}

/// `mfhd` (§8.8.5).
public struct MovieFragmentHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["mfhd"]
    public var boxType: FourCC { "mfhd" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var sequenceNumber: UInt32 = 1

    public init() {}
    public init(sequenceNumber: UInt32) { self.sequenceNumber = sequenceNumber }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 0)
        try c.uint32(&sequenceNumber)
    }
}

/// `tfhd` (§8.8.7).
public struct TrackFragmentHeaderBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["tfhd"]
    public var boxType: FourCC { "tfhd" }
    public var version: UInt8 = 0
    public var trackID: UInt32 = 1
    public var baseDataOffset: UInt64?
    public var sampleDescriptionIndex: UInt32?
    public var defaultSampleDuration: UInt32?
    public var defaultSampleSize: UInt32?
    public var defaultSampleFlags: UInt32?
    /// Flag 0x010000: the fragment has no samples for this duration.
    public var durationIsEmpty = false
    /// Flag 0x020000: offsets are relative to the enclosing `moof`.
    public var defaultBaseIsMoof = false

    static let knownFlags: UInt32 = 0x01 | 0x02 | 0x08 | 0x10 | 0x20 | 0x01_0000 | 0x02_0000

    public init() {}
    public init(trackID: UInt32, defaultBaseIsMoof: Bool = true) {
        self.trackID = trackID
        self.defaultBaseIsMoof = defaultBaseIsMoof
    }

    /// The flags this header's optional fields announce.
    public var flags: UInt32 {
        (baseDataOffset != nil ? 0x01 : 0) | (sampleDescriptionIndex != nil ? 0x02 : 0)
            | (defaultSampleDuration != nil ? 0x08 : 0) | (defaultSampleSize != nil ? 0x10 : 0)
            | (defaultSampleFlags != nil ? 0x20 : 0) | (durationIsEmpty ? 0x01_0000 : 0) | (defaultBaseIsMoof ? 0x02_0000 : 0)
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        var f = flags
        try c.fullBoxHeader(version: &version, flags: &f, supported: 0 ... 0)
        guard f & ~Self.knownFlags == 0 else { throw c.invalidField("tf_flags", "unknown flag bits") }
        try c.uint32(&trackID)
        if c.isReading { c.contextTrackID = trackID }
        if f & 0x01 != 0 { var v = baseDataOffset ?? 0; try c.uint64(&v); baseDataOffset = v }
        if f & 0x02 != 0 { var v = sampleDescriptionIndex ?? 0; try c.uint32(&v); sampleDescriptionIndex = v }
        if f & 0x08 != 0 { var v = defaultSampleDuration ?? 0; try c.uint32(&v); defaultSampleDuration = v }
        if f & 0x10 != 0 { var v = defaultSampleSize ?? 0; try c.uint32(&v); defaultSampleSize = v }
        if f & 0x20 != 0 { var v = defaultSampleFlags ?? 0; try c.uint32(&v); defaultSampleFlags = v }
        durationIsEmpty = f & 0x01_0000 != 0
        defaultBaseIsMoof = f & 0x02_0000 != 0
        if c.isReading, trackID == 0 { throw c.invalidField("track_ID", "must not be 0") }
    }
}

/// `tfdt` (§8.8.12). Version 1 is chosen on write when the time does not fit 32 bits.
public struct TrackFragmentBaseMediaDecodeTimeBox: MP4Box {
    public static let supportedTypes: [FourCC] = ["tfdt"]
    public var boxType: FourCC { "tfdt" }
    public var version: UInt8 = 0
    public var flags: UInt32 = 0
    public var baseMediaDecodeTime: UInt64 = 0

    public init() {}
    public init(baseMediaDecodeTime: UInt64, version: UInt8 = 1) {
        self.baseMediaDecodeTime = baseMediaDecodeTime
        self.version = version
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        if c.isWriting, baseMediaDecodeTime > UInt64(UInt32.max) { version = max(version, 1) }
        try c.fullBoxHeader(version: &version, flags: &flags, supported: 0 ... 1)
        try c.uint(&baseMediaDecodeTime, wide: version == 1, field: "baseMediaDecodeTime")
    }
}

/// `trun` (§8.8.8). Every sample carries the same set of optional fields (that is what the flags
/// say); writing refuses samples that differ. Version 1 (signed composition offsets) is chosen on
/// write when an offset is negative.
public struct TrackRunBox: MP4Box {
    public struct Sample: Sendable, Equatable {
        public var sampleDuration: UInt32?
        public var sampleSize: UInt32?
        public var sampleFlags: UInt32?
        public var sampleCompositionTimeOffset: Int64?

        public init(sampleDuration: UInt32? = nil, sampleSize: UInt32? = nil, sampleFlags: UInt32? = nil,
                    sampleCompositionTimeOffset: Int64? = nil) {
            self.sampleDuration = sampleDuration
            self.sampleSize = sampleSize
            self.sampleFlags = sampleFlags
            self.sampleCompositionTimeOffset = sampleCompositionTimeOffset
        }

        var presentFlags: UInt32 {
            (sampleDuration != nil ? 0x100 : 0) | (sampleSize != nil ? 0x200 : 0) | (sampleFlags != nil ? 0x400 : 0)
                | (sampleCompositionTimeOffset != nil ? 0x800 : 0)
        }
    }

    public static let supportedTypes: [FourCC] = ["trun"]
    public var boxType: FourCC { "trun" }
    public var version: UInt8 = 0
    /// Relative to the base data offset (the `moof` start with default-base-is-moof).
    public var dataOffset: Int32?
    public var firstSampleFlags: UInt32?
    public var samples: [Sample] = []

    static let knownFlags: UInt32 = 0x001 | 0x004 | 0x100 | 0x200 | 0x400 | 0x800

    public init() {}
    public init(dataOffset: Int32?, firstSampleFlags: UInt32? = nil, samples: [Sample]) {
        self.dataOffset = dataOffset
        self.firstSampleFlags = firstSampleFlags
        self.samples = samples
    }

    /// The flags this run's optional fields announce.
    public var flags: UInt32 {
        (dataOffset != nil ? 0x001 : 0) | (firstSampleFlags != nil ? 0x004 : 0) | (samples.first?.presentFlags ?? 0)
    }

    public mutating func describe(_ c: inout BoxCoder) throws(MP4Error) {
        var f = flags
        if c.isWriting {
            let perSample = samples.first?.presentFlags ?? 0
            guard samples.allSatisfy({ $0.presentFlags == perSample }) else {
                throw c.invalidField("tr_flags", "every sample must carry the same optional fields")
            }
            if samples.contains(where: { ($0.sampleCompositionTimeOffset ?? 0) < 0 }) { version = max(version, 1) }
        }
        try c.fullBoxHeader(version: &version, flags: &f, supported: 0 ... 1)
        guard f & ~Self.knownFlags == 0 else { throw c.invalidField("tr_flags", "unknown flag bits") }
        var n = samples.count
        let has = (duration: f & 0x100 != 0, size: f & 0x200 != 0, flags: f & 0x400 != 0, offset: f & 0x800 != 0)
        let entrySize = [has.duration, has.size, has.flags, has.offset].filter { $0 }.count * 4
        try c.count(&n, width: 4, minimumSize: 0, field: "sample_count")
        if f & 0x001 != 0 { var v = dataOffset ?? 0; try c.int32(&v); dataOffset = v }
        if f & 0x004 != 0 { var v = firstSampleFlags ?? 0; try c.uint32(&v); firstSampleFlags = v }
        let signed = version == 1
        try c.elements(&samples, count: n, minimumSize: entrySize, field: "sample_count", make: { Sample() }) {
            (c, s) throws(MP4Error) in
            if has.duration { var v = s.sampleDuration ?? 0; try c.uint32(&v); s.sampleDuration = v }
            if has.size { var v = s.sampleSize ?? 0; try c.uint32(&v); s.sampleSize = v }
            if has.flags { var v = s.sampleFlags ?? 0; try c.uint32(&v); s.sampleFlags = v }
            if has.offset {
                var v = s.sampleCompositionTimeOffset ?? 0
                try describeSampleOffset(&v, signed: signed, field: "sample_composition_time_offset", &c)
                s.sampleCompositionTimeOffset = v
            }
        }
    }
}
