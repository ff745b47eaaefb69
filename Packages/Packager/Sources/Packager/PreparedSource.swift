import Foundation
import MediaDRMMP4

/// The media half of packaging, shared by both profiles: the source opened, its components
/// chosen, the sound re-encoded when it must be, the video analysed and the segments planned.
/// Holds the private directory of a re-encoded audio file until it is released.
public final class PreparedSource {
    public let movie: SourceMovie
    public let selection: SourceSelection
    public let video: ComponentStream
    public let audio: ComponentStream?
    /// The audio track that is packaged (the source's, or the re-encoded one).
    public let audioTrack: SourceTrack?
    public let audioConfig: AudioSpecificConfig?
    /// ISO 639-2/T of the sound: the packaged track's, or for a mix the first source track's
    /// that names one.
    public let audioLanguage: String?
    public let plan: SegmentPlan
    /// Why the sound was re-encoded; nil when it is packaged as it is or absent.
    public let reencodeReason: String?
    private let scratch: PrivateTemporaryDirectory?

    public var streams: [ComponentStream] { [video] + (audio.map { [$0] } ?? []) }

    public init(input: String, segmentDuration: Double, ffmpegPath: String?, maximumSegments: Int = SegmentPlan.maximumSegments,
                protected: Bool = true,
                say: @escaping (String) -> Void) throws(PackagerError) {
        say("reading \(input)")
        let movie = try SourceMovie(path: input)
        let selection = try SourceSelection(movie: movie)
        self.movie = movie
        self.selection = selection
        say("analysing \(selection.video.samples.count) video samples")
        video = try ComponentStream.video(movie, track: selection.video, protected: protected) { done, total in
            if total >= 2048, done % 2048 == 0 { say("  \(done * 100 / total)% analysed") }
        }
        var audioTrack = selection.audio
        var audioConfig = selection.audioConfig
        var audioMovie = movie
        var scratch: PrivateTemporaryDirectory?
        if let reason = selection.reencodeReason {
            let ffmpeg = try AudioReencoder.requireFFmpeg(ffmpegPath, for: "the audio must be mixed and re-encoded to AAC-LC (\(reason))")
            say("re-encoding the audio to AAC-LC with ffmpeg: \(reason)")
            let soundTrackIDs = Set(selection.soundTracks.map(\.trackID))
            let audioOrder = movie.tracks.filter { $0.kind == .audio }
            let streams = audioOrder.indices.filter { soundTrackIDs.contains(audioOrder[$0].trackID) }
            let reencoded = try AudioReencoder.reencode(input: input, streams: streams, sounds: selection.soundTracks,
                                                        covering: selection.video, ffmpeg: ffmpeg)
            audioTrack = reencoded.track
            audioConfig = reencoded.config
            audioMovie = reencoded.movie
            scratch = reencoded.directory
        }
        self.audioTrack = audioTrack
        self.audioConfig = audioConfig
        audioLanguage = selection.audio?.language ?? selection.soundTracks.map(\.language).first { $0 != "und" }
        self.scratch = scratch
        reencodeReason = selection.reencodeReason
        audio = audioTrack.map { ComponentStream.audio(audioMovie, track: $0) }
        plan = try SegmentPlan(video: selection.video, isIDR: video.isIDR, audio: audioTrack, targetDuration: segmentDuration,
                               maximumSegments: maximumSegments)
        say("\(plan.segments.count) segments of about \(segmentDuration) s, \(streams.count) component(s)")
    }

    /// The private directory holding the re-encoded audio file, while it exists.
    public var scratchPath: String? { scratch?.path }

    /// Removes the re-encoded audio file (it is also removed when this object is released).
    public func removeScratch() { scratch?.remove() }
}
