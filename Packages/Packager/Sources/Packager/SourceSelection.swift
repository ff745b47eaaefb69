/// The tracks of a source that become components: the first H.264 video track and, when the
/// source has sound, its one AAC-LC track (fps-v2 §3, §8.2 #13).
public struct SourceSelection: Sendable {
    public let video: SourceTrack
    public let audio: SourceTrack?
    public let audioConfig: AudioSpecificConfig?

    public init(movie: SourceMovie) throws(PackagerError) {
        let videos = movie.tracks.filter { $0.kind == .video }
        guard let video = videos.first(where: { $0.format == "avc1" || $0.format == "avc3" }) else {
            throw PackagerError(.unsupportedInput,
                                videos.isEmpty ? "the input has no video track; fps-v2 needs H.264 video"
                                               : "the input has no H.264 video track (found '\(videos[0].format)')")
        }
        guard video.format == "avc1" else {
            throw PackagerError(.unsupportedInput, "\(video.name) is 'avc3' (parameter sets in band); fps-v2 needs 'avc1'")
        }
        self.video = video
        let sounds = movie.tracks.filter { $0.kind == .audio && $0.samples.count > 0 }
        guard let sound = sounds.first else {
            audio = nil
            audioConfig = nil
            return
        }
        guard sounds.count == 1 else {
            throw PackagerError(.unsupportedInput,
                                "the input has \(sounds.count) audio tracks; mixing them needs re-encoding, which is not available")
        }
        guard sound.format == "mp4a", let config = try sound.audioSpecificConfig() else {
            throw PackagerError(.unsupportedInput,
                                "\(sound.name) is '\(sound.format)', not AAC; re-encoding it to AAC-LC is not available")
        }
        guard config.audioObjectType == 2 else {
            throw PackagerError(.unsupportedInput,
                                "\(sound.name) is MPEG-4 audio object type \(config.audioObjectType), not AAC-LC; re-encoding is not available")
        }
        guard config.channelCount != nil else {
            throw PackagerError(.unsupportedInput,
                                "\(sound.name) has AAC channel configuration \(config.channelConfiguration); fps-v2 needs 1 to 7 (re-encoding is not available)")
        }
        audio = sound
        audioConfig = config
    }
}
