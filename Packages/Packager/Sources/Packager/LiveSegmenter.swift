/// Cuts the live input into segments as it arrives: a segment ends when at least the target
/// duration of video has accumulated and the next video sample may start a segment (an IDR
/// frame); its audio is every packet that starts before that time. Video drives the cut, audio
/// follows by time, and no packet is held longer than the segment it belongs to.
///
/// Times are moved onto the stream's timeline: the first video sample of a run decodes at
/// `resume.video` (0 for a new stream, where the previous run ended after a restart) and the
/// audio moves by the same time, so the two stay in sync; an audio packet that would start
/// before `resume.audio` (before the stream, or inside the previous run's audio) is dropped.
struct LiveSegmenter {
    struct Segment {
        /// Video samples with stream decode times; the first may start a segment.
        var video: [LiveSample]
        var audio: [LiveSample]
        /// Stream decode time of the first video sample (video timescale).
        var start: Int64
        /// Sum of the video durations (video timescale).
        var duration: Int64
        /// Stream decode time of the first audio packet (audio timescale); the previous end when
        /// the segment has no audio.
        var audioStart: Int64
    }

    let videoTimescale: Int64
    let audioTimescale: Int64?
    let target: Int64
    private let tolerance: Int64
    private let resume: (video: Int64, audio: Int64)
    /// Added to a source video decode time to give the stream time (set by the first sample).
    private var videoShift: Int64?
    private var pendingVideo: [LiveSample] = []
    private var pendingAudio: [LiveSample] = []
    private var audioEnd: Int64
    /// Audio packets dropped because they started before the stream or the previous run's end.
    private(set) var droppedAudio = 0

    init(videoTimescale: UInt32, audioTimescale: UInt32?, targetDuration: Double, resume: (video: Int64, audio: Int64)) {
        self.videoTimescale = Int64(videoTimescale)
        self.audioTimescale = audioTimescale.map(Int64.init)
        target = Int64((targetDuration * Double(videoTimescale)).rounded())
        tolerance = max(Int64(videoTimescale) / 1000, 1)
        self.resume = resume
        audioEnd = resume.audio
    }

    /// The video timeline's end so far (where the next run resumes).
    var videoEnd: Int64 { pendingVideo.last.map { $0.decodeTimeStream + Int64($0.duration) } ?? resume.video }

    /// Adds one fragment's samples and returns the segments they complete.
    mutating func add(video: [LiveSample], audio: [LiveSample]) throws(PackagerError) -> [Segment] {
        if videoShift == nil, let first = video.first {
            guard first.canStartSegment else {
                throw PackagerError(.unsupportedInput, "the live input does not start with an IDR frame (start the encoder's output at a key frame)")
            }
            videoShift = resume.video - Int64(first.decodeTime)
        }
        for var sample in audio {
            sample.decodeTimeStream = Int64(sample.decodeTime)
            pendingAudio.append(sample)
        }
        var done: [Segment] = []
        for var sample in video {
            sample.decodeTimeStream = Int64(sample.decodeTime) + (videoShift ?? 0)
            if sample.canStartSegment, let first = pendingVideo.first,
               sample.decodeTimeStream - first.decodeTimeStream >= target - tolerance {
                done.append(cut(at: sample.decodeTimeStream, final: false))
            }
            pendingVideo.append(sample)
        }
        return done
    }

    /// The last segment at the end of the input: every pending sample.
    mutating func finish() -> Segment? {
        guard let last = pendingVideo.last else { return nil }
        return cut(at: last.decodeTimeStream + Int64(last.duration), final: true)
    }

    /// The pending video before `end` (stream time, video timescale) and the audio that starts
    /// before it (all of it when `final`).
    private mutating func cut(at end: Int64, final: Bool) -> Segment {
        let video = pendingVideo
        pendingVideo = []
        var audio: [LiveSample] = []
        if let ats = audioTimescale {
            // The audio moves by the video's shift, in its own timescale.
            let shift = ((videoShift ?? 0) * ats) / videoTimescale
            var keep: [LiveSample] = []
            for var sample in pendingAudio {
                sample.decodeTimeStream = Int64(sample.decodeTime) + shift
                if sample.decodeTimeStream < audioEnd {
                    droppedAudio += 1
                } else if final || sample.decodeTimeStream * videoTimescale < end * ats {
                    audioEnd = sample.decodeTimeStream + Int64(sample.duration)
                    audio.append(sample)
                } else {
                    keep.append(sample)
                }
            }
            pendingAudio = keep
        }
        let start = video.first?.decodeTimeStream ?? end
        return Segment(video: video, audio: audio, start: start, duration: video.reduce(0) { $0 + Int64($1.duration) },
                       audioStart: audio.first?.decodeTimeStream ?? audioEnd)
    }

    /// Where the audio timeline ends so far.
    var audioTimelineEnd: Int64 { audioEnd }
}
