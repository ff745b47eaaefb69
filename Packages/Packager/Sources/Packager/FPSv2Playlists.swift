import Foundation
import MediaDRMFPSv2
import MediaDRMHLS
import MediaDRMMP4

/// `master.m3u8` and each `<id>.m3u8` (§7), with the attributes computed from the media:
/// BANDWIDTH and AVERAGE-BANDWIDTH summed over the renditions, CODECS, RESOLUTION and FRAME-RATE
/// from the video track (`VideoAttributes`), CHANNELS from the AudioSpecificConfig and LANGUAGE from
/// the audio track's `mdhd`. Each playlist is checked with the strict fps-v2 parser before use.
struct FPSv2Playlists {
    var master: Data
    var media: [Data]
    var videoCodec: String

    init(plan: SegmentPlan, video track: SourceTrack, audio audioTrack: SourceTrack?, audioConfig: AudioSpecificConfig?,
         audioLanguage: String? = nil, rates: [BitRates], uuid: String, iv: [UInt8]) throws(PackagerError) {
        let shape = try Self.masterShape(plan: plan, video: track, audio: audioTrack, audioConfig: audioConfig,
                                         audioLanguage: audioLanguage, rates: rates)
        videoCodec = shape.video.codec
        let durations = plan.durations
        let target = HLSFPSv2.targetDuration(for: durations)
        do {
            master = try HLSWriter.data(.master(HLSFPSv2.masterPlaylist(video: shape.video, audio: shape.audio)))
            var media: [Data] = []
            for id in ["video"] + (shape.audio == nil ? [] : ["audio"]) {
                media.append(try HLSWriter.data(.media(HLSFPSv2.mediaPlaylist(component: id, policyUUID: uuid, iv: Data(iv),
                                                                             segmentDurations: durations, targetDuration: target))))
            }
            self.media = media
            for playlist in [master] + media { _ = try HLSParser.parse(playlist, mode: .fpsV2Strict) }
        } catch {
            throw PackagerError(.malformedInput, "a playlist could not be written in the fps-v2 grammar: \(error.reason)")
        }
    }

    /// The variant and rendition attributes, shared with tdf-hls's master playlist.
    static func masterShape(plan: SegmentPlan, video track: SourceTrack, audio audioTrack: SourceTrack?,
                            audioConfig: AudioSpecificConfig?, audioLanguage: String?,
                            rates: [BitRates]) throws(PackagerError) -> (video: HLSFPSv2.Video, audio: HLSFPSv2.Audio?) {
        let attributes = try VideoAttributes(track)
        let video = HLSFPSv2.Video(bandwidth: rates.reduce(0) { $0 + $1.peak }, averageBandwidth: rates.reduce(0) { $0 + $1.average },
                                   codec: attributes.codec, resolution: attributes.resolution, frameRate: attributes.frameRate)
        var audio: HLSFPSv2.Audio?
        if let audioTrack, let channels = audioConfig?.channelCount {
            audio = HLSFPSv2.Audio(language: bcp47(audioLanguage ?? audioTrack.language), channels: channels)
        }
        return (video, audio)
    }

    /// `mdhd` holds ISO 639-2/T; a three-letter code is a valid BCP 47 primary subtag, and the
    /// common ones have a two-letter form that BCP 47 prefers.
    static func bcp47(_ code: String) -> String {
        let twoLetter = ["eng": "en", "fra": "fr", "deu": "de", "spa": "es", "ita": "it", "jpn": "ja", "zho": "zh",
                         "por": "pt", "rus": "ru", "kor": "ko", "ara": "ar", "nld": "nl", "swe": "sv", "hin": "hi"]
        guard code.utf8.count == 3, code.utf8.allSatisfy({ (0x61 ... 0x7A).contains($0) }) else { return "und" }
        return twoLetter[code] ?? code
    }
}
