/// The start of a fragmented MP4 stream: its `ftyp` (when there is one), its `moov` and, per
/// track, the defaults of its `trex` and its timescale.
public struct FragmentedMP4Header: Sendable {
    public struct Track: Sendable {
        public let trackID: UInt32
        /// `mdhd` timescale, never 0.
        public let timescale: UInt32
        /// `hdlr` handler type (`vide`, `soun`, ...).
        public let handlerType: FourCC
        /// The track's `trex`: the defaults of its fragments' samples.
        public let defaults: TrackExtendsBox
        public let box: TrackBox
    }

    public let fileType: FileTypeBox?
    public let movie: MovieBox
    public let tracks: [Track]

    public func track(_ id: UInt32) -> Track? { tracks.first { $0.trackID == id } }
}

/// One sample of a fragment, every default resolved (`trun`, then `tfhd`, then `trex`).
public struct MP4FragmentSample: Sendable, Equatable {
    public let trackID: UInt32
    /// Decode time in the track's timescale: the `tfdt` of its run plus the durations before it.
    public let decodeTime: UInt64
    public let duration: UInt32
    /// ISO/IEC 14496-12 §8.8.3.1 sample flags.
    public let flags: UInt32
    public let compositionOffset: Int64
    public let bytes: [UInt8]

    /// Not `sample_is_non_sync_sample` (§8.8.3.1).
    public var isSync: Bool { flags & 0x0001_0000 == 0 }

    public init(trackID: UInt32, decodeTime: UInt64, duration: UInt32, flags: UInt32, compositionOffset: Int64, bytes: [UInt8]) {
        self.trackID = trackID
        self.decodeTime = decodeTime
        self.duration = duration
        self.flags = flags
        self.compositionOffset = compositionOffset
        self.bytes = bytes
    }
}

/// One `moof` and the `mdat` after it, as samples in the order the runs list them.
public struct MP4Fragment: Sendable {
    /// The `mfhd` sequence number.
    public let sequenceNumber: UInt32
    /// Where the `moof` starts in the stream.
    public let offset: UInt64
    public let samples: [MP4FragmentSample]
}
