import MediaDRMMP4

/// One sample of a track fragment with every default resolved (`trun`, then `tfhd`, then `trex`).
public struct FragmentSample: Sendable, Equatable {
    /// Where the sample starts in the fragment's `mediaData`.
    public var offset: Int
    public var size: Int
    public var duration: UInt32
    public var flags: UInt32
    public var compositionTimeOffset: Int64

    public init(offset: Int, size: Int, duration: UInt32, flags: UInt32, compositionTimeOffset: Int64) {
        self.offset = offset
        self.size = size
        self.duration = duration
        self.flags = flags
        self.compositionTimeOffset = compositionTimeOffset
    }

    /// `sample_is_non_sync_sample` clear.
    public var isSync: Bool { flags & 0x0001_0000 == 0 }
}

/// One `traf` of a fragment, resolved.
public struct TrackFragmentSamples: Sendable, Equatable {
    public var trackID: UInt32
    /// From `tfdt`, or continued from the track's previous fragment when it has none.
    public var baseMediaDecodeTime: UInt64
    public var samples: [FragmentSample]
    /// For each `trun` in order, where its first sample starts in `mediaData`.
    public var runOffsets: [Int]

    /// The sum of the sample durations, in the track's timescale.
    public var duration: UInt64 { samples.reduce(0) { $0 + UInt64($1.duration) } }
}

/// A movie fragment held in memory: its `moof` and the payload of the `mdat` that follows it,
/// every sample of which lies inside that payload. Serialising recomputes the sizes and every
/// `trun` data offset (relative to the `moof`), so boxes may be removed from or renumbered in
/// `movieFragment` freely as long as runs and samples stay as they are.
public struct MediaFragment: Sendable {
    public var movieFragment: MovieFragmentBox
    public var mediaData: [UInt8]
    /// The `traf`s in `moof` order, resolved.
    public var trackFragments: [TrackFragmentSamples]

    public init(movieFragment: MovieFragmentBox, mediaData: [UInt8], trackFragments: [TrackFragmentSamples]) {
        self.movieFragment = movieFragment
        self.mediaData = mediaData
        self.trackFragments = trackFragments
    }

    /// The bytes of the sample `index` of track fragment `traf`.
    public func sampleData(traf: Int, index: Int) -> ArraySlice<UInt8>? {
        guard trackFragments.indices.contains(traf), trackFragments[traf].samples.indices.contains(index) else { return nil }
        let sample = trackFragments[traf].samples[index]
        return mediaData[sample.offset ..< sample.offset + sample.size]
    }

    /// `moof` then `mdat`. `sequenceNumber` replaces the `mfhd` number; `trackIDs` renumbers
    /// tracks (a `track_ID` missing from it is kept). Every `tfhd` becomes default-base-is-moof
    /// without a base data offset.
    public func serializedBytes(sequenceNumber: UInt32? = nil, trackIDs: [UInt32: UInt32] = [:]) throws(MediaError) -> [UInt8] {
        let (head, mediaData) = try serializedParts(sequenceNumber: sequenceNumber, trackIDs: trackIDs)
        var out: [UInt8] = []
        out.reserveCapacity(head.count + mediaData.count)
        out += head
        out += mediaData
        return out
    }

    /// The same bytes as `serializedBytes` in two parts, `moof` and the `mdat` header, then the
    /// `mdat` payload (this fragment's own storage, not a copy), so an output can write them one
    /// after the other without building the whole fragment again.
    public func serializedParts(sequenceNumber: UInt32? = nil, trackIDs: [UInt32: UInt32] = [:]) throws(MediaError) -> (head: [UInt8], mediaData: [UInt8]) {
        (try serializedHead(payloadCount: mediaData.count, sequenceNumber: sequenceNumber, trackIDs: trackIDs), mediaData)
    }

    /// `moof` and the `mdat` header for a payload of `payloadCount` bytes (held elsewhere).
    func serializedHead(payloadCount: Int, sequenceNumber: UInt32? = nil, trackIDs: [UInt32: UInt32] = [:]) throws(MediaError) -> [UInt8] {
        let header: [UInt8]
        do throws(MP4Error) {
            header = try MediaDataBox.header(payloadSize: UInt64(payloadCount))
        } catch {
            throw MediaError.mp4(error, "cannot write 'mdat'")
        }
        var moof = movieFragment
        if let sequenceNumber { moof.movieFragmentHeader = MovieFragmentHeaderBox(sequenceNumber: sequenceNumber) }
        // First pass with zero offsets to learn the moof size; data offsets are fixed-size fields,
        // so the second pass has the same size.
        let sizing = try Self.encode(Self.placing(moof, trackFragments, base: nil, trackIDs: trackIDs))
        let base = sizing.count + header.count
        let bytes = try Self.encode(Self.placing(moof, trackFragments, base: base, trackIDs: trackIDs))
        guard bytes.count == sizing.count else {
            throw MediaError(.malformed, "'moof' size changed when its data offsets were set")
        }
        return bytes + header
    }

    private static func encode(_ moof: MovieFragmentBox) throws(MediaError) -> [UInt8] {
        do throws(MP4Error) {
            return try moof.serializedBytes()
        } catch {
            throw MediaError.mp4(error, "cannot write 'moof'")
        }
    }

    private static func placing(_ moof: MovieFragmentBox, _ resolved: [TrackFragmentSamples], base: Int?,
                                trackIDs: [UInt32: UInt32]) throws(MediaError) -> MovieFragmentBox {
        var moof = moof
        var trafIndex = 0
        for index in moof.children.boxes.indices {
            guard var traf = moof.children.boxes[index] as? TrackFragmentBox else { continue }
            guard resolved.indices.contains(trafIndex), var tfhd = traf.trackFragmentHeader else {
                throw MediaError(.malformed, "'traf' without its resolved samples")
            }
            let runOffsets = resolved[trafIndex].runOffsets
            tfhd.baseDataOffset = nil
            tfhd.defaultBaseIsMoof = true
            if let renumbered = trackIDs[tfhd.trackID] { tfhd.trackID = renumbered }
            traf.trackFragmentHeader = tfhd
            var runIndex = 0
            for child in traf.children.boxes.indices {
                guard var run = traf.children.boxes[child] as? TrackRunBox else { continue }
                guard runOffsets.indices.contains(runIndex) else {
                    throw MediaError(.malformed, "'trun' without its resolved offset")
                }
                let offset = (base ?? 0) + (base == nil ? 0 : runOffsets[runIndex])
                guard let field = Int32(exactly: offset) else {
                    throw MediaError(.limitExceeded, "'trun'.data_offset does not fit 32 bits")
                }
                run.dataOffset = field
                traf.children.boxes[child] = run
                runIndex += 1
            }
            moof.children.boxes[index] = traf
            trafIndex += 1
        }
        return moof
    }
}
