// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMMP4

/// The tracks of a source that become components (fps-v2 §3, §8.2 #13): the first H.264 video
/// track (or, for tdf-hls, the first H.264 or HEVC one) and, when the source has sound, either
/// its one AAC-LC track as it is or every sound track to be mixed and re-encoded once as AAC-LC.
public struct SourceSelection: Sendable {
    public let video: SourceTrack
    /// The audio track packaged as it is; nil without sound or when the sound is re-encoded.
    public let audio: SourceTrack?
    public let audioConfig: AudioSpecificConfig?
    /// Every track with sound, in file order (the ones a re-encoding mixes).
    public let soundTracks: [SourceTrack]
    /// Why the sound must be mixed and re-encoded; nil when it is packaged as it is or absent.
    public let reencodeReason: String?

    /// - Parameter allowsHEVC: tdf-hls and cmaf take HEVC video; fps-v2 carries H.264 only (§3, §8 #8)
    ///   and refuses it, naming those sections.
    public init(movie: SourceMovie, allowsHEVC: Bool = false) throws(PackagerError) {
        let videos = movie.tracks.filter { $0.kind == .video }
        let isH264: (SourceTrack) -> Bool = { $0.format == "avc1" || $0.format == "avc3" }
        guard let video = videos.first(where: { isH264($0) || (allowsHEVC && $0.isHEVC) }) else {
            if let hevc = videos.first(where: \.isHEVC) {
                throw PackagerError(.unsupportedInput,
                                    "\(hevc.name) is HEVC ('\(hevc.format)'); fps-v2 carries H.264 'avc1' video only (fps-v2 §3, §8 #8); package HEVC with --profile tdf-hls or cmaf")
            }
            throw PackagerError(.unsupportedInput,
                                videos.isEmpty ? "the input has no video track; fps-v2 needs H.264 video"
                                               : "the input has no H.264 video track (found '\(videos[0].format)')")
        }
        if video.isHEVC, video.hevcConfiguration == nil {
            throw PackagerError(.malformedInput, "\(video.name) is '\(video.format)' without an 'hvcC' box")
        }
        guard video.format != "avc3" else {
            throw PackagerError(.unsupportedInput, "\(video.name) is 'avc3' (parameter sets in band); fps-v2 needs 'avc1'")
        }
        try self.init(movie: movie, video: video)
    }

    init(movie: SourceMovie, video: SourceTrack) throws(PackagerError) {
        self.video = video
        let sounds = movie.tracks.filter { $0.kind == .audio && $0.samples.count > 0 }
        soundTracks = sounds
        let (track, config, reason) = Self.decide(video: video, sounds: sounds)
        audio = track
        audioConfig = config
        reencodeReason = reason
    }

    /// One AAC-LC track with channel configuration 1 to 7 that covers the video is kept; anything
    /// else is re-encoded, and the reason names what made it so.
    static func decide(video: SourceTrack, sounds: [SourceTrack]) -> (SourceTrack?, AudioSpecificConfig?, String?) {
        guard let sound = sounds.first else { return (nil, nil, nil) }
        guard sounds.count == 1 else { return (nil, nil, "the input has \(sounds.count) audio tracks, which are mixed") }
        if let edit = sound.unsupportedEdit { return (nil, nil, edit) }
        let config: AudioSpecificConfig?
        do { config = try sound.audioSpecificConfig() } catch { config = nil }
        guard sound.format == "mp4a", let config else {
            return (nil, nil, "\(sound.name) is \(codecName(sound)), not AAC-LC")
        }
        guard config.audioObjectType == 2 else {
            return (nil, nil, "\(sound.name) is MPEG-4 audio object type \(config.audioObjectType), not AAC-LC")
        }
        guard config.channelCount != nil else {
            return (nil, nil, "\(sound.name) has AAC channel configuration \(config.channelConfiguration); fps-v2 needs 1 to 7")
        }
        switch SegmentPlan.audioCoverage(video: video, audio: sound) {
        case .covers: return (sound, config, nil)
        case .startsLate: return (nil, nil, "\(sound.name) starts after the video")
        case .stopsEarly: return (nil, nil, "\(sound.name) stops before the video ends")
        case .noOverlap: return (nil, nil, "\(sound.name) does not overlap the video")
        }
    }

    /// A readable name for a non-AAC sound track's codec.
    static func codecName(_ track: SourceTrack) -> String {
        if track.format == "mp4a" {
            switch track.audioEntry?.elementaryStreamDescriptor?.descriptor.decoderConfig.objectTypeIndication {
            case 0x69, 0x6B: return "MPEG audio (MP3)"
            case 0xA5: return "AC-3"
            case 0xA6: return "E-AC-3"
            case 0xAD: return "Opus"
            case let oti?: return "MPEG-4 object type indication 0x\(String(oti, radix: 16))"
            case nil: return "'mp4a' without an esds"
            }
        }
        switch track.format.description {
        case "ac-3": return "AC-3"
        case "ec-3": return "E-AC-3"
        case "Opus": return "Opus"
        case "fLaC": return "FLAC"
        case ".mp3": return "MP3"
        default: return "'\(track.format.description.trimmingCharacters(in: .whitespaces))'"
        }
    }
}
