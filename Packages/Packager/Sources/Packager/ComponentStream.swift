// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCENC
import MediaDRMCrypto
import MediaDRMMP4

/// One component's media as it is written: the source track, its cbcs subsample maps (video),
/// and the segment plan. Segments are built one at a time, reading their samples from the file
/// on demand; nothing holds more than one segment.
public final class ComponentStream {
    public enum Kind: String, Sendable { case video, audio }

    public let kind: Kind
    public let movie: SourceMovie
    public let track: SourceTrack
    /// Per video sample, its subsample map (empty for audio).
    public let subsampleMaps: [[CENCSubsample]]
    /// Per video sample, whether a segment may start there: an IDR slice (H.264), an IRAP
    /// picture with its parameter sets at hand (HEVC).
    public let isIDR: [Bool]
    private let compositionShift: Int64

    /// Reads every video sample once to find the IDR frames and compute the subsample maps
    /// (fps-v2 §8.1 #11: the NAL unit length size must be 4, and no `senc` entry over 255 bytes).
    /// `protected: false` (tdf-hls, clear fragments) lifts the `senc` entry limit.
    public static func video(_ movie: SourceMovie, track: SourceTrack, protected: Bool = true,
                             progress: ((Int, Int) -> Void)? = nil) throws(PackagerError) -> ComponentStream {
        if track.isHEVC { return try hevcVideo(movie, track: track, protected: protected, progress: progress) }
        guard let entry = track.videoEntry, let avcC = entry.avcConfiguration, track.format == "avc1" else {
            throw PackagerError(.unsupportedInput, "\(track.name) is not H.264 ('avc1' with 'avcC')")
        }
        guard avcC.nalUnitLengthSize == 4 else {
            throw PackagerError(.unsupportedInput,
                                "\(track.name) uses \(avcC.nalUnitLengthSize)-byte NAL unit lengths; fps-v2 needs 4 (re-mux the input)")
        }
        var generator: VideoSubsampleGenerator
        do { generator = try VideoSubsampleGenerator(sampleEntry: entry) } catch {
            throw PackagerError(.malformedInput, "\(track.name): the avcC parameter sets are invalid: \(error.reason)")
        }
        var maps: [[CENCSubsample]] = []
        var idr: [Bool] = []
        let count = track.samples.count
        maps.reserveCapacity(count)
        idr.reserveCapacity(count)
        for i in 0 ..< count {
            let sample = try movie.readSample(track, i)
            do {
                let map = try generator.subsamples(for: sample)
                if protected { try checkEntrySize(map, track: track, sample: i) }
                maps.append(map)
                let nals = try H264.NALUnit.split(sample, lengthSize: 4)
                idr.append(nals.contains { $0.typeCode == 5 })
            } catch let error as PackagerError {
                throw error
            } catch let error as CENCError {
                throw PackagerError(.malformedInput, "\(track.name): sample \(i + 1) is not valid H.264: \(error.reason)")
            } catch {
                throw PackagerError(.malformedInput, "\(track.name): sample \(i + 1) is not valid H.264")
            }
            if i % 256 == 0 { progress?(i, count) }
        }
        return ComponentStream(kind: .video, movie: movie, track: track, subsampleMaps: maps, isIDR: idr)
    }

    /// An HEVC track. A segment may start at an IRAP picture (IDR, CRA, BLA) that decodes with
    /// nothing before it: the parameter sets are in `hvcC` or, for `hev1`, in band in that
    /// sample. `protected` (cmaf) also makes each sample's `cbcs` subsample map
    /// (`HEVCSubsampleGenerator`); tdf-hls's fragments are clear and need none.
    static func hevcVideo(_ movie: SourceMovie, track: SourceTrack, protected: Bool,
                          progress: ((Int, Int) -> Void)?) throws(PackagerError) -> ComponentStream {
        guard let entry = track.videoEntry, let hvcC = entry.hevcConfiguration else {
            throw PackagerError(.malformedInput, "\(track.name) is '\(track.format)' without an 'hvcC' box")
        }
        var analyzer: HEVCSampleAnalyzer
        var generator: VideoSubsampleGenerator?
        do {
            analyzer = try HEVCSampleAnalyzer(configuration: hvcC)
            if protected { generator = try VideoSubsampleGenerator(sampleEntry: entry) }
        } catch {
            throw PackagerError(.malformedInput, "\(track.name): the hvcC parameter sets are invalid: \(error.reason)")
        }
        if track.format == "hvc1", !analyzer.parameterSets.isComplete {
            throw PackagerError(.malformedInput,
                                "\(track.name) is 'hvc1' but its hvcC lacks a VPS, SPS or PPS (ISO/IEC 14496-15 §8.4.1 puts them all there; label it 'hev1' if they are in band)")
        }
        var starts: [Bool] = []
        var maps: [[CENCSubsample]] = []
        let count = track.samples.count
        starts.reserveCapacity(count)
        maps.reserveCapacity(count)
        for i in 0 ..< count {
            let sample = try movie.readSample(track, i)
            do throws(CENCError) {
                starts.append(try analyzer.analyze(sample).startsIndependently)
                maps.append(try generator?.subsamples(for: sample) ?? [])
            } catch {
                if error.code == .unsupported {
                    throw PackagerError(.unsupportedInput, "\(track.name): sample \(i + 1) uses HEVC the cbcs subsample map does not handle: \(error.reason)")
                }
                throw PackagerError(.malformedInput, "\(track.name): sample \(i + 1) is not valid HEVC: \(error.reason)")
            }
            if protected { try checkEntrySize(maps[i], track: track, sample: i) }
            if i % 256 == 0 { progress?(i, count) }
        }
        return ComponentStream(kind: .video, movie: movie, track: track, subsampleMaps: maps, isIDR: starts)
    }

    /// fps-v2 §8.1 #11 (and `saiz`'s one-byte sizes in any cbcs fragment): a sample's `senc`
    /// entry, 2 bytes and 6 per subsample, fits 255 bytes.
    static func checkEntrySize(_ map: [CENCSubsample], track: SourceTrack, sample i: Int) throws(PackagerError) {
        guard 2 + 6 * map.count <= 255 else {
            throw PackagerError(.limitExceeded,
                                "\(track.name): sample \(i + 1) has \(map.count) subsamples; its senc entry would exceed 255 bytes (more than 42 NAL units)")
        }
    }

    public static func audio(_ movie: SourceMovie, track: SourceTrack) -> ComponentStream {
        ComponentStream(kind: .audio, movie: movie, track: track, subsampleMaps: [], isIDR: [])
    }

    init(kind: Kind, movie: SourceMovie, track: SourceTrack, subsampleMaps: [[CENCSubsample]], isIDR: [Bool]) {
        self.kind = kind
        self.movie = movie
        self.track = track
        self.subsampleMaps = subsampleMaps
        self.isIDR = isIDR
        compositionShift = kind == .video ? track.edit.mediaStart : 0
    }

    func range(of segment: SegmentPlan.Segment) -> Range<Int> { kind == .video ? segment.video : segment.audio }
    func decodeTime(of segment: SegmentPlan.Segment) -> UInt64 {
        kind == .video ? segment.videoDecodeTime : segment.audioDecodeTime
    }

    func fragmentSamples(_ range: Range<Int>) -> [SegmentSample] {
        let s = track.samples
        return range.map { i in
            SegmentSample(size: s.sizes[i], duration: s.durations[i], isSync: s.isSync[i],
                           compositionOffset: kind == .video ? Int64(s.compositionOffsets[i]) - compositionShift : nil,
                           subsamples: kind == .video ? subsampleMaps[i] : [])
        }
    }

    /// Each segment's media duration in seconds: the plan's presentation ranges for video; for
    /// audio the sum of its own packets' durations (audio segment N holds the packets that start
    /// in video segment N, so its length differs by up to a packet). Bit rates over these match
    /// what a reader of the segments measures (Shaka Packager's DASH `bandwidth`).
    func mediaDurations(_ plan: SegmentPlan) -> [Double] {
        guard kind == .audio else { return plan.durations }
        return plan.segments.map { segment in
            Double(segment.audio.reduce(Int64(0)) { $0 + Int64(track.samples.durations[$1]) }) / Double(track.timescale)
        }
    }

    /// The `moof` and `mdat` header of segment `index` (`sharedDuration`: `MediaSegment.header`).
    public func header(segment: SegmentPlan.Segment, index: Int, protected: Bool = true,
                       sharedDuration: Bool = false) throws(PackagerError) -> [UInt8] {
        try MediaSegment.header(sequenceNumber: UInt32(index + 1), decodeTime: decodeTime(of: segment),
                                samples: fragmentSamples(range(of: segment)), isVideo: kind == .video, protected: protected,
                                sharedDuration: sharedDuration)
    }

    /// The size in bytes of segment `index`, without reading media.
    public func size(segment: SegmentPlan.Segment, index: Int, protected: Bool = true) throws(PackagerError) -> Int {
        let payload = range(of: segment).reduce(0) { $0 + Int(track.samples.sizes[$1]) }
        return try header(segment: segment, index: index, protected: protected).count + payload
    }

    /// Segment `index`: its header, then each sample read from the source and encrypted with
    /// `cipher` (clear when nil). `protected: false` gives a clear fragment without sample
    /// encryption boxes (tdf-hls).
    public func bytes(segment: SegmentPlan.Segment, index: Int, cipher: CBCSSampleCipher?,
                      protected: Bool = true, sharedDuration: Bool = false) throws(PackagerError) -> [UInt8] {
        var output = try header(segment: segment, index: index, protected: protected, sharedDuration: sharedDuration)
        for i in range(of: segment) {
            var sample = try movie.readSample(track, i)
            if let cipher {
                do {
                    try cipher.encrypt(&sample, subsamples: kind == .video ? subsampleMaps[i] : [])
                } catch {
                    throw PackagerError(.cryptoFailure, "\(track.name): sample \(i + 1) could not be encrypted")
                }
            }
            output += sample
        }
        return output
    }
}
