import Foundation
import MediaDRMHLS
import MediaDRMMedia

/// Builders for fps-v2 shaped playlists (draft-arkavo-tdf-fairplay-01 §7). `HLSWriter` turns
/// their results into the exact bytes of the profile's Appendix A.3, which `.fpsV2Strict` accepts.
public enum HLSFPSv2 {

    public struct Video: Sendable, Equatable {
        public var bandwidth: Int
        public var averageBandwidth: Int
        /// `avc1.` and the avcC's profile, compatibility and level bytes as 6 hex digits;
        /// written in upper case (§7.2 "Hexadecimal case").
        public var codec: String
        public var resolution: HLSResolution
        /// Written with three decimals; a value with more is not fps-v2 shaped.
        public var frameRate: Double

        public init(bandwidth: Int, averageBandwidth: Int, codec: String, resolution: HLSResolution, frameRate: Double) {
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codec = codec
            self.resolution = resolution
            self.frameRate = frameRate
        }
    }

    public struct Audio: Sendable, Equatable {
        /// BCP 47; "und" when unknown.
        public var language: String
        /// 1 to 6, or 8 for channelConfiguration 7.
        public var channels: Int

        public init(language: String = "und", channels: Int) {
            self.language = language
            self.channels = channels
        }
    }

    /// `skd://<policy uuid>/<component>`.
    public static func keyURI(policyUUID: String, component: String) -> String {
        SKDKeyURI.scheme + policyUUID + "/" + component
    }

    /// The smallest target duration every segment fits once rounded to the nearest integer
    /// (RFC 8216 §4.3.3.1), at least 1.
    public static func targetDuration(for durations: [Double]) -> Int {
        var target = 1
        for d in durations where d.isFinite {
            let rounded = d.rounded()
            if rounded > Double(target), rounded < Double(Int.max) { target = Int(rounded) }
        }
        return target
    }

    /// `master.m3u8`: version 7, independent segments, the audio rendition when there is audio,
    /// and the one `video.m3u8` variant.
    public static func masterPlaylist(video: Video, audio: Audio?) -> HLSMasterPlaylist {
        var codecs = [canonicalAVC1(video.codec)]
        var renditions: [HLSRendition] = []
        if let audio {
            codecs.append("mp4a.40.2")
            renditions.append(HLSRendition(type: .audio, groupID: "audio", name: "Audio", language: audio.language,
                                           isDefault: true, autoselect: true, channels: String(audio.channels), uri: "audio.m3u8"))
        }
        let variant = HLSVariant(uri: "video.m3u8", bandwidth: video.bandwidth, averageBandwidth: video.averageBandwidth,
                                 codecs: codecs, resolution: video.resolution, frameRate: video.frameRate,
                                 audio: audio == nil ? nil : "audio")
        return HLSMasterPlaylist(version: 7, independentSegments: true, renditions: renditions, variants: [variant])
    }

    /// `<component>.m3u8`: VOD, media sequence 0, the SAMPLE-AES key (with the IV when given),
    /// the init map, one segment per duration named `<component>-segment<N>.m4s`, and ENDLIST.
    public static func mediaPlaylist(component: String, policyUUID: String, iv: Data?, segmentDurations: [Double],
                                     targetDuration: Int? = nil) -> HLSMediaPlaylist {
        let key = HLSKey(method: .sampleAES, uri: keyURI(policyUUID: policyUUID, component: component), iv: iv,
                         keyFormat: FPSv2Profile.keyFormat, keyFormatVersions: FPSv2Profile.keyFormatVersions)
        let map = HLSMap(uri: "\(component)-init.mp4")
        var segments: [HLSSegment] = []
        segments.reserveCapacity(segmentDurations.count)
        for (n, d) in segmentDurations.enumerated() {
            segments.append(HLSSegment(duration: d, uri: "\(component)-segment\(n).m4s",
                                       keys: n == 0 ? [key] : [], map: n == 0 ? map : nil))
        }
        return HLSMediaPlaylist(version: 7, targetDuration: targetDuration ?? Self.targetDuration(for: segmentDurations),
                                mediaSequence: 0, playlistType: .vod, independentSegments: true,
                                segments: segments, endList: true)
    }

    /// What an admitting reader compares with the manifest (§5.4, §6.1, §9.3): the policy uuid
    /// and component named by the first segment's `skd://` key, and its IV. nil when the
    /// playlist has no such key; run `.fpsV2Strict` first for the full grammar.
    public static func keyIdentity(of playlist: HLSMediaPlaylist) -> (policyUUID: String, component: String, iv: Data?)? {
        guard let key = playlist.segments.first?.keys.first, key.method == .sampleAES, let uri = key.uri,
              let component = FPSv2Grammar.componentOfKeyURI(uri) else { return nil }
        let uuid = String(uri.dropFirst(SKDKeyURI.scheme.count).prefix(36))
        return (uuid, component, key.iv)
    }

    static func canonicalAVC1(_ codec: String) -> String {
        guard codec.hasPrefix("avc1.") else { return codec }
        return "avc1." + codec.dropFirst(5).uppercased()
    }
}
