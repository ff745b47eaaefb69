/// Reads a fragmented MP4 stream as an encoder writes it on a pipe (ffmpeg `-movflags
/// frag_keyframe+empty_moov+default_base_moof`): `ftyp`, a `moov` with `mvex`, then `moof` +
/// `mdat` pairs, one fragment at a time, in order, without seeking. Only the box being read is
/// held, and each is checked against `FragmentedMP4Limits` before its bytes are allocated.
///
/// Top-level `free`, `skip`, `styp`, `sidx`, `prft`, `emsg`, `uuid` and `mfra` (ffmpeg writes
/// one at the end) are read past in small chunks; any other box, a second `moov`, a `moof`
/// before the `moov`, an `mdat` without its `moof`, or a box of size 0 ("to the end", which a
/// stream cannot bound) is refused with an error that names it.
public struct FragmentedMP4Reader {
    public let limits: FragmentedMP4Limits
    private let stream: any MP4ByteStream
    /// Bytes read from the stream so far: the stream offset of the next box.
    public private(set) var offset: UInt64 = 0
    public private(set) var header: FragmentedMP4Header?
    private var nextDecodeTimes: [UInt32: UInt64] = [:]

    static let passedOver: Set<FourCC> = ["free", "skip", "styp", "sidx", "prft", "emsg", "uuid", "mfra"]
    /// Chunk in which passed-over boxes are read and dropped.
    static let discardChunk = 64 << 10

    public init(stream: any MP4ByteStream, limits: FragmentedMP4Limits = FragmentedMP4Limits()) {
        self.stream = stream
        self.limits = limits
    }

    // MARK: Stream

    /// Exactly `count` bytes, or a truncation error naming `box` when the stream ends first.
    private mutating func read(_ count: Int, inside box: FourCC?) throws(MP4Error) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let chunk = try stream.read(maximumCount: count - bytes.count)
            guard !chunk.isEmpty else { throw MP4Error(.truncated, "the stream ends inside '\(box?.description ?? "a box header")'", box: box) }
            bytes += chunk
        }
        offset += UInt64(count)
        return bytes
    }

    static func fourCC(_ prefix: [UInt8]) -> FourCC {
        FourCC(rawValue: prefix[4 ..< 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    private mutating func discard(_ count: UInt64, inside box: FourCC) throws(MP4Error) {
        var left = count
        while left > 0 {
            let chunk = try stream.read(maximumCount: Int(min(left, UInt64(Self.discardChunk))))
            guard !chunk.isEmpty else { throw MP4Error(.truncated, "the stream ends inside '\(box)'", box: box) }
            left -= UInt64(chunk.count)
            offset += UInt64(chunk.count)
        }
    }

    /// The next top-level box header, or nil at a clean end (between boxes).
    private mutating func nextHeader() throws(MP4Error) -> BoxHeader? {
        let start = offset
        let first = try stream.read(maximumCount: 8)
        if first.isEmpty { return nil }
        var prefix = first
        offset += UInt64(first.count)
        if prefix.count < 8 { prefix += try read(8 - prefix.count, inside: nil) }
        if prefix[0 ..< 4] == [0, 0, 0, 1] { prefix += try read(8, inside: Self.fourCC(prefix)) }
        if prefix[0 ..< 4] == [0, 0, 0, 0] {
            throw MP4Error(.invalidSize, "'\(Self.fourCC(prefix))' has size 0 (to the end of the stream), which a stream reader cannot bound",
                           box: Self.fourCC(prefix))
        }
        return try BoxHeader.parse(prefix, at: 0, available: UInt64.max, fileOffset: start)
    }

    /// The payload of `header` after its header bytes, once its size is checked against `limit`.
    private mutating func payload(_ header: BoxHeader, limit: UInt64, what: String) throws(MP4Error) -> [UInt8] {
        guard header.payloadSize <= limit else {
            throw MP4Error(.invalidSize, "'\(header.type)' of \(header.size) bytes is larger than the \(what) limit of \(limit) bytes", box: header.type)
        }
        return try read(Int(header.payloadSize), inside: header.type)
    }

    /// A whole box parsed by its description.
    private mutating func box(_ header: BoxHeader, limit: UInt64, what: String) throws(MP4Error) -> any MP4Box {
        let body = try payload(header, limit: limit, what: what)
        var bytes = try headerBytes(header)
        bytes += body
        var coder = BoxCoder(reading: bytes, baseOffset: header.offset,
                             options: DecodingOptions(maximumEmptyEntryCount: limits.maximumSamplesPerFragment))
        return try coder.readBox()
    }

    private func headerBytes(_ header: BoxHeader) throws(MP4Error) -> [UInt8] {
        func be(_ v: UInt64, _ width: Int) -> [UInt8] { (0 ..< width).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(width - 1 - $0))) } }
        let type = be(UInt64(header.type.rawValue), 4)
        return header.headerSize == 16 ? be(1, 4) + type + be(header.size, 8) : be(header.size, 4) + type
    }

    // MARK: Header

    /// Reads up to and including the `moov`, which must carry an `mvex` with a `trex` for every
    /// track. Call once, before `nextFragment`.
    public mutating func readHeader() throws(MP4Error) -> FragmentedMP4Header {
        if let header { return header }
        var fileType: FileTypeBox?
        while true {
            guard let h = try nextHeader() else {
                throw MP4Error(.truncated, "the stream ends before its 'moov' (is it fragmented MP4?)")
            }
            switch h.type {
            case "ftyp":
                guard fileType == nil else { throw MP4Error(.missingBox, "the stream has two 'ftyp' boxes", box: "ftyp") }
                guard let box = try box(h, limit: limits.maximumMovieBoxSize, what: "'ftyp'") as? FileTypeBox else {
                    throw MP4Error(.invalidField, "'ftyp' could not be read", box: "ftyp")
                }
                fileType = box
            case "moov":
                guard let movie = try box(h, limit: limits.maximumMovieBoxSize, what: "'moov'") as? MovieBox else {
                    throw MP4Error(.invalidField, "'moov' could not be read", box: "moov")
                }
                let made = try Self.header(fileType: fileType, movie: movie)
                header = made
                return made
            case "moof", "mdat":
                throw MP4Error(.missingBox, "'\(h.type)' comes before the 'moov' (not a fragmented MP4 stream as an encoder writes it)", box: h.type)
            default:
                guard Self.passedOver.contains(h.type) else {
                    throw MP4Error(.invalidField, "unexpected top-level box '\(h.type)' before the 'moov'", box: h.type)
                }
                try discard(h.payloadSize, inside: h.type)
            }
        }
    }

    static func header(fileType: FileTypeBox?, movie: MovieBox) throws(MP4Error) -> FragmentedMP4Header {
        guard let mvex = movie.movieExtends else {
            throw MP4Error(.missingBox, "'moov' has no 'mvex': the stream is not fragmented", box: "moov")
        }
        var tracks: [FragmentedMP4Header.Track] = []
        for trak in movie.tracks {
            guard let id = trak.trackHeader?.trackID, let mdia = trak.media, let mdhd = mdia.mediaHeader, let hdlr = mdia.handler else {
                throw MP4Error(.missingBox, "a 'trak' lacks 'tkhd', 'mdhd' or 'hdlr'", box: "trak")
            }
            guard mdhd.timescale > 0 else { throw MP4Error(.invalidField, "track \(id): 'mdhd' timescale is 0", box: "mdhd", field: "timescale") }
            guard !tracks.contains(where: { $0.trackID == id }) else {
                throw MP4Error(.invalidField, "two tracks have track_ID \(id)", box: "tkhd", field: "track_ID")
            }
            let trexes = mvex.trackExtends.filter { $0.trackID == id }
            guard trexes.count == 1, let trex = trexes.first else {
                throw MP4Error(.missingBox, "track \(id) has \(trexes.count) 'trex' boxes in 'mvex'; it needs exactly one", box: "mvex")
            }
            tracks.append(.init(trackID: id, timescale: mdhd.timescale, handlerType: hdlr.handlerType, defaults: trex, box: trak))
        }
        guard !tracks.isEmpty else { throw MP4Error(.missingBox, "'moov' has no track", box: "moov") }
        return FragmentedMP4Header(fileType: fileType, movie: movie, tracks: tracks)
    }

    // MARK: Fragments

    /// The next `moof` + `mdat`, or nil when the stream ends cleanly between boxes.
    public mutating func nextFragment() throws(MP4Error) -> MP4Fragment? {
        guard let header else { throw MP4Error(.missingBox, "readHeader() must be called before nextFragment()") }
        while true {
            guard let h = try nextHeader() else { return nil }
            switch h.type {
            case "moof":
                guard let moof = try box(h, limit: limits.maximumFragmentBoxSize, what: "'moof'") as? MovieFragmentBox else {
                    throw MP4Error(.invalidField, "'moof' could not be read", box: "moof")
                }
                guard let m = try nextHeader() else {
                    throw MP4Error(.truncated, "the stream ends after a 'moof' at byte \(h.offset), before its 'mdat'", box: "moof")
                }
                guard m.type == "mdat" else {
                    throw MP4Error(.missingBox, "the 'moof' at byte \(h.offset) is followed by '\(m.type)', not by its 'mdat'", box: "moof")
                }
                let data = try payload(m, limit: limits.maximumMediaDataSize, what: "'mdat'")
                return try resolve(moof, at: h.offset, mediaData: data, payloadOffset: m.payloadOffset, header: header)
            case "mdat":
                throw MP4Error(.missingBox, "an 'mdat' at byte \(h.offset) has no 'moof' before it", box: "mdat")
            case "moov", "ftyp":
                throw MP4Error(.invalidField, "a second '\(h.type)' at byte \(h.offset)", box: h.type)
            default:
                guard Self.passedOver.contains(h.type) else {
                    throw MP4Error(.invalidField, "unexpected top-level box '\(h.type)' at byte \(h.offset)", box: h.type)
                }
                try discard(h.payloadSize, inside: h.type)
            }
        }
    }

    /// Every sample of `moof`'s runs with its defaults resolved and its bytes cut from the
    /// `mdat` payload, whose stream offset is `payloadOffset` (§8.8.7: offsets count from the
    /// `moof` with default-base-is-moof, from `base_data_offset` when given, else the first
    /// track fragment from the `moof` and each later one from where the previous one's data ended).
    mutating func resolve(_ moof: MovieFragmentBox, at moofOffset: UInt64, mediaData: [UInt8], payloadOffset: UInt64,
                          header: FragmentedMP4Header) throws(MP4Error) -> MP4Fragment {
        var samples: [MP4FragmentSample] = []
        var previousEnd: UInt64?
        let payloadEnd = payloadOffset + UInt64(mediaData.count)
        for traf in moof.trackFragments {
            guard let tfhd = traf.trackFragmentHeader else { throw MP4Error(.missingBox, "a 'traf' has no 'tfhd'", box: "traf") }
            guard let track = header.track(tfhd.trackID) else {
                throw MP4Error(.invalidField, "'tfhd' names track \(tfhd.trackID), which the 'moov' does not have", box: "tfhd", field: "track_ID")
            }
            let trex = track.defaults
            let base: UInt64 = tfhd.baseDataOffset ?? (tfhd.defaultBaseIsMoof ? moofOffset : previousEnd ?? moofOffset)
            var time = traf.decodeTime?.baseMediaDecodeTime ?? nextDecodeTimes[track.trackID] ?? 0
            var cursor = base
            for trun in traf.trackRuns {
                if let relative = trun.dataOffset {
                    let (position, overflow) = Int64(bitPattern: base).addingReportingOverflow(Int64(relative))
                    guard base <= UInt64(Int64.max), !overflow, position >= 0 else {
                        throw MP4Error(.invalidField, "track \(track.trackID): 'trun' data_offset points before the stream", box: "trun", field: "data_offset")
                    }
                    cursor = UInt64(position)
                }
                for (index, entry) in trun.samples.enumerated() {
                    guard samples.count < limits.maximumSamplesPerFragment else {
                        throw MP4Error(.countTooLarge, "a fragment has more than \(limits.maximumSamplesPerFragment) samples", box: "trun", field: "sample_count")
                    }
                    let size = entry.sampleSize ?? tfhd.defaultSampleSize ?? trex.defaultSampleSize
                    let duration = entry.sampleDuration ?? tfhd.defaultSampleDuration ?? trex.defaultSampleDuration
                    let flags = entry.sampleFlags ?? (index == 0 ? trun.firstSampleFlags : nil) ?? tfhd.defaultSampleFlags ?? trex.defaultSampleFlags
                    let (end, overflow) = cursor.addingReportingOverflow(UInt64(size))
                    guard cursor >= payloadOffset, !overflow, end <= payloadEnd else {
                        throw MP4Error(.invalidField, "track \(track.trackID): a sample of the 'moof' at byte \(moofOffset) lies outside the 'mdat' that follows it",
                                       box: "trun", field: "data_offset")
                    }
                    let from = Int(cursor - payloadOffset)
                    samples.append(MP4FragmentSample(trackID: track.trackID, decodeTime: time, duration: duration, flags: flags,
                                                     compositionOffset: entry.sampleCompositionTimeOffset ?? 0,
                                                     bytes: Array(mediaData[from ..< from + Int(size)])))
                    let (next, late) = time.addingReportingOverflow(UInt64(duration))
                    guard !late else { throw MP4Error(.invalidField, "track \(track.trackID): decode times overflow", box: "trun", field: "sample_duration") }
                    time = next
                    cursor = end
                }
            }
            previousEnd = cursor
            nextDecodeTimes[track.trackID] = time
        }
        return MP4Fragment(sequenceNumber: moof.movieFragmentHeader?.sequenceNumber ?? 0, offset: moofOffset, samples: samples)
    }
}
