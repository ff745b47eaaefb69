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
