// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMFPSv2
import MediaDRMMedia
/// How a source is cut into media segments (fps-v2 §7.4–§7.5): video segments start at IDR
/// frames once the target duration is reached; segment N of the audio holds the packets that
/// start in the time range of video segment N, with contiguous decode times.
///
/// Package time 0 is the first video sample's decode time. Video composition offsets are moved
/// by the edit list's media start, so the first presented frame shows at time 0 without an edit
/// list. Audio is placed through both tracks' edits; a packet that starts before time 0 (AAC
/// encoder priming) is kept in segment 0 and the audio run is placed from decode time
/// max(0, its start), so no packet of a source that covers the video is lost.
public struct SegmentPlan: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        /// Video sample indices.
        public var video: Range<Int>
        /// Audio sample indices (empty without audio).
        public var audio: Range<Int>
        /// The package time range, video timescale.
        public var start: Int64
        public var end: Int64
        /// `tfdt` of the video fragment (video timescale).
        public var videoDecodeTime: UInt64
        /// `tfdt` of the audio fragment (audio timescale).
        public var audioDecodeTime: UInt64
    }

    public let videoTimescale: UInt32
    public let audioTimescale: UInt32?
    /// Subtracted from every source composition offset of the video.
    public let videoCompositionShift: Int64
    public let segments: [Segment]

    /// Each segment's duration in seconds (the `#EXTINF` values).
    public var durations: [Double] { segments.map { Double($0.end - $0.start) / Double(videoTimescale) } }
    public var totalDuration: Double { Double((segments.last?.end ?? 0) - (segments.first?.start ?? 0)) / Double(videoTimescale) }

    /// fps-v2 §4: the default bound is the profile's.
    public static let maximumSegments = FPSv2Profile.maxSegmentsPerComponent

    /// - Parameters:
    ///   - isIDR: per video sample, whether it holds an IDR slice (nil: trust `stss`).
    ///   - targetDuration: seconds; a segment ends at the first IDR frame at or after it.
    public init(video: SourceTrack, isIDR: [Bool]?, audio: SourceTrack?, targetDuration: Double,
                maximumSegments: Int = SegmentPlan.maximumSegments) throws(PackagerError) {
        let vs = video.samples
        guard vs.count > 0 else { throw PackagerError(.malformedInput, "\(video.name) has no samples") }
        guard targetDuration > 0, targetDuration.isFinite else {
            throw PackagerError(.invalidArgument, "the segment duration must be a positive number of seconds")
        }
        let ts = Int64(video.timescale)
        let compositionShift = video.edit.mediaStart
        func canCut(_ i: Int) -> Bool { vs.isSync[i] && (isIDR?[i] ?? true) }
        guard canCut(0) else {
            throw PackagerError(.unsupportedInput, "\(video.name) does not start with an IDR frame")
        }
        func packageTime(_ i: Int) -> Int64 { vs.compositionTime(i) - compositionShift }

        // Video cuts.
        let target = Int64((targetDuration * Double(ts)).rounded())
        let tolerance = max(ts / 1000, 1)
        var starts = [0]
        var boundary: Int64 = 0
        for i in 1 ..< vs.count where canCut(i) {
            let t = packageTime(i)
            if t - boundary >= target - tolerance {
                starts.append(i)
                boundary = t
                guard starts.count <= maximumSegments else {
                    throw PackagerError(.limitExceeded,
                                        "the video needs more than \(maximumSegments) segments (fps-v2 limit); use a longer --segment-duration")
                }
            }
        }
        var bounds = starts.enumerated().map { n, i in n == 0 ? Int64(0) : packageTime(i) }
        var end = Self.packageEnd(video)
        if let last = bounds.last, end <= last {
            end = (0 ..< vs.count).map { packageTime($0) + Int64(vs.durations[$0]) }.max() ?? last + 1
            if end <= last { end = last + 1 }
        }
        bounds.append(end)

        // Audio ranges.
        var audioRanges = Array(repeating: 0 ..< 0, count: starts.count)
        var audioDecodeTimes = Array(repeating: UInt64(0), count: starts.count)
        if let audio {
            let a = audio.samples
            let ats = Int64(audio.timescale)
            guard a.count > 0 else { throw PackagerError(.malformedInput, "\(audio.name) has no samples") }
            let placement = AudioPlacement(video: video, audio: audio, end: end)
            switch placement.coverage {
            case .covers: break
            case .noOverlap:
                throw PackagerError(.unsupportedInput, "\(audio.name) does not overlap the video")
            case .startsLate:
                throw PackagerError(.unsupportedInput,
                                    "\(audio.name) starts after the video; it cannot be placed to cover the video (fps-v2 §7.5 #6)")
            case .stopsEarly:
                throw PackagerError(.unsupportedInput,
                                    "\(audio.name) stops before the video ends; it cannot be placed to cover the video (fps-v2 §7.5 #6)")
            }
            let first = placement.first, last = placement.last
            func before(_ k: Int, _ b: Int64) -> Bool { placement.startTime(k) * ts < b * ats }
            func startTime(_ k: Int) -> Int64 { placement.startTime(k) }
            var decodeTime = UInt64(max(0, startTime(first)))
            var k = first
            for n in 0 ..< starts.count {
                let from = k
                let upper = bounds[n + 1]
                while k < last, n == starts.count - 1 || before(k, upper) {
                    k += 1
                }
                guard k > from else {
                    throw PackagerError(.unsupportedInput, "audio segment \(n) would hold no packets")
                }
                audioRanges[n] = from ..< k
                audioDecodeTimes[n] = decodeTime
                for j in from ..< k { decodeTime += UInt64(a.durations[j]) }
            }
        }

        var segments: [Segment] = []
        for n in 0 ..< starts.count {
            let upperSample = n + 1 < starts.count ? starts[n + 1] : vs.count
            segments.append(Segment(video: starts[n] ..< upperSample, audio: audioRanges[n],
                                    start: bounds[n], end: bounds[n + 1],
                                    videoDecodeTime: UInt64(max(0, vs.decodeTimes[starts[n]])),
                                    audioDecodeTime: audioDecodeTimes[n]))
        }
        self.segments = segments
        videoTimescale = video.timescale
        audioTimescale = audio?.timescale
        videoCompositionShift = compositionShift
    }

    /// The video's presented end in package time (video timescale).
    static func packageEnd(_ video: SourceTrack) -> Int64 { video.presentationEnd - video.edit.delay }

    /// Whether `audio`, placed through both tracks' edits, covers `video` (§7.5 #3, #6): from the
    /// first presented frame to the presented end, within one packet at each side.
    public static func audioCoverage(video: SourceTrack, audio: SourceTrack) -> AudioPlacement.Coverage {
        guard audio.samples.count > 0, video.samples.count > 0, audio.timescale > 0, video.timescale > 0 else { return .noOverlap }
        var end = packageEnd(video)
        if end <= 0 {
            end = (0 ..< video.samples.count).map { video.samples.compositionTime($0) - video.edit.mediaStart + Int64(video.samples.durations[$0]) }.max() ?? 1
        }
        return AudioPlacement(video: video, audio: audio, end: max(end, 1)).coverage
    }
}

/// Where the audio packets fall on the package timeline (video time 0 is the first video
/// sample's decode time): packet `k` starts at its decode time moved by both tracks' edits.
public struct AudioPlacement: Sendable {
    public enum Coverage: Sendable, Equatable { case covers, noOverlap, startsLate, stopsEarly }

    let shift: Int64
    let decodeTimes: [Int64]
    /// The first packet that ends after time 0, and one past the last that starts before the end.
    let first: Int
    let last: Int
    public let coverage: Coverage

    init(video: SourceTrack, audio: SourceTrack, end: Int64) {
        let a = audio.samples
        let ts = Int64(video.timescale), ats = Int64(audio.timescale)
        let shift = -audio.edit.mediaStart + audio.edit.delay - video.edit.delay * ats / ts
        self.shift = shift
        decodeTimes = a.decodeTimes
        func startTime(_ k: Int) -> Int64 { a.decodeTimes[k] + shift }
        var first = 0
        while first < a.count, (startTime(first) + Int64(a.durations[first])) < 0 { first += 1 }
        var last = first
        while last < a.count, startTime(last) * ts < end * ats { last += 1 }
        self.first = first
        self.last = last
        guard last > first else {
            coverage = .noOverlap
            return
        }
        let firstPresented = max(0, video.presentationStart - video.edit.delay)
        let firstDuration = Int64(a.durations[first])
        let lastDuration = Int64(a.durations[last - 1])
        if startTime(first) * ts > (firstPresented * ats) + firstDuration * ts {
            coverage = .startsLate
        } else if (startTime(last - 1) + lastDuration) * ts < end * ats - lastDuration * ts {
            coverage = .stopsEarly
        } else {
            coverage = .covers
        }
    }

    func startTime(_ k: Int) -> Int64 { decodeTimes[k] + shift }
}
