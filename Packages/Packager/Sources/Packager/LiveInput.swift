import MediaDRMCENC
import MediaDRMMP4

/// The live input: fragmented MP4 read fragment by fragment (`FragmentedMP4Reader`), its video
/// track (H.264 or HEVC, as tdf-hls takes them) and its first AAC-LC track. Nothing is
/// re-encoded live, so sound that is not AAC-LC is refused rather than re-encoded.
final class LiveInput {
    let video: SourceTrack
    let audio: SourceTrack?
    /// Channels of the audio (1 to 7 AAC channel configurations).
    let audioChannels: Int?
    /// Sound tracks other than the one packaged (named in a warning).
    let ignoredTracks: [String]
    private var reader: FragmentedMP4Reader
    private var cutPoints: LiveCutPoints

    init(stream: any MP4ByteStream, limits: FragmentedMP4Limits = FragmentedMP4Limits()) throws(PackagerError) {
        reader = FragmentedMP4Reader(stream: stream, limits: limits)
        let header: FragmentedMP4Header
        do { header = try reader.readHeader() } catch { throw Self.translate(error) }
        let movieTimescale = header.movie.movieHeader?.timescale ?? 1
        var tracks: [SourceTrack] = []
        for track in header.tracks {
            let made = try SourceTrack(track: track.box, movieTimescale: movieTimescale, fileSize: 0)
            guard made.samples.count == 0 else {
                throw PackagerError(.unsupportedInput, "\(made.name) lists samples in the 'moov'; live input carries every sample in fragments (ffmpeg -movflags empty_moov)")
            }
            tracks.append(made)
        }
        guard let video = tracks.first(where: { $0.kind == .video }) else {
            throw PackagerError(.unsupportedInput, "the live input has no video track")
        }
        guard (video.format == "avc1" && video.avcConfiguration?.nalUnitLengthSize == 4) || (video.isHEVC && video.hevcConfiguration != nil) else {
            throw PackagerError(.unsupportedInput, "\(video.name) is '\(video.format)'; live tdf-hls takes H.264 ('avc1' with 4-byte NAL lengths) or HEVC")
        }
        self.video = video
        cutPoints = try LiveCutPoints(video)
        let sounds = tracks.filter { $0.kind == .audio }
        if let sound = sounds.first {
            let config = try? sound.audioSpecificConfig()
            guard sound.format == "mp4a", let config, config.audioObjectType == 2, let channels = config.channelCount else {
                throw PackagerError(.unsupportedInput, "\(sound.name) is not AAC-LC with channel configuration 1 to 7; the live packager does not re-encode (encode AAC-LC upstream)")
            }
            audio = sound
            audioChannels = channels
        } else {
            audio = nil
            audioChannels = nil
        }
        let kept = [video.trackID, sounds.first?.trackID]
        ignoredTracks = tracks.filter { !kept.contains($0.trackID) }.map(\.name)
    }

    /// The next fragment's video and audio samples, or nil at the end of the input. Each video
    /// sample says whether a segment may start at it.
    func next() throws(PackagerError) -> (video: [LiveSample], audio: [LiveSample])? {
        let fragment: MP4Fragment?
        do { fragment = try reader.nextFragment() } catch { throw Self.translate(error) }
        guard let fragment else { return nil }
        var videoSamples: [LiveSample] = [], audioSamples: [LiveSample] = []
        for sample in fragment.samples {
            if sample.trackID == video.trackID {
                var cut = false
                if sample.isSync { cut = try cutPoints.startsIndependently(sample.bytes) }
                videoSamples.append(LiveSample(sample, canStartSegment: cut))
            } else if sample.trackID == audio?.trackID {
                audioSamples.append(LiveSample(sample, canStartSegment: true))
            }
        }
        return (videoSamples, audioSamples)
    }

    static func translate(_ error: MP4Error) -> PackagerError {
        switch error.code {
        case .truncated: PackagerError(.truncatedInput, "the live input is truncated: \(error.reason)")
        case .io: PackagerError(.io, "reading the live input failed")
        default: PackagerError(.malformedInput, "the live input is not fragmented MP4 as an encoder writes it: \(error.reason)")
        }
    }
}

/// One sample of the live input in the source's own timeline.
struct LiveSample: Sendable {
    var decodeTime: UInt64
    /// The decode time on the stream's timeline (`LiveSegmenter`).
    var decodeTimeStream: Int64 = 0
    var duration: UInt32
    var compositionOffset: Int64
    var canStartSegment: Bool
    var bytes: [UInt8]

    init(_ sample: MP4FragmentSample, canStartSegment: Bool) {
        decodeTime = sample.decodeTime
        duration = sample.duration
        compositionOffset = sample.compositionOffset
        self.canStartSegment = canStartSegment
        bytes = sample.bytes
    }
}

/// Whether a video sample may start a segment, as the VOD packager decides it
/// (`ComponentStream`): an H.264 sample with an IDR slice, an HEVC IRAP picture that decodes with
/// nothing before it. The `trun` sync flag alone is an encoder's claim.
struct LiveCutPoints {
    private var hevc: HEVCSampleAnalyzer?
    private let name: String

    init(_ track: SourceTrack) throws(PackagerError) {
        name = track.name
        if track.isHEVC, let hvcC = track.hevcConfiguration {
            do { hevc = try HEVCSampleAnalyzer(configuration: hvcC) } catch {
                throw PackagerError(.malformedInput, "\(track.name): the hvcC parameter sets are invalid: \(error.reason)")
            }
        }
    }

    mutating func startsIndependently(_ sample: [UInt8]) throws(PackagerError) -> Bool {
        do {
            if hevc != nil { return try hevc!.analyze(sample).startsIndependently }
            return try H264.NALUnit.split(sample, lengthSize: 4).contains { $0.typeCode == 5 }
        } catch {
            throw PackagerError(.malformedInput, "\(name): a sync sample of the live input is not valid video: \(error.reason)")
        }
    }
}
