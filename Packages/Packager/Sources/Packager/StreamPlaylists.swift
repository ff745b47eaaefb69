import Foundation
import MediaDRMFPSv2
import MediaDRMHLS

/// The RFC 8216 playlists of a multi-rendition stream (tdf-hls, cmaf): a VOD media playlist per
/// rendition and one master over the variants and the audio and subtitle renditions. The two
/// profiles differ only in the version, the tags that mark the profile and the keys, which is
/// what this value holds; `TDFHLSPackager.playlists` and `CMAFPackager.playlists` are the two.
struct StreamPlaylists: Sendable {
    /// `#EXT-X-VERSION` of the media playlists.
    var mediaVersion: Int
    /// Written before the first segment's map in every media playlist (tdf-hls's `EXT-X-DEFINE`).
    var mediaTags: [HLSTag] = []
    /// Written in the master after the variants (tdf-hls's `EXT-X-SESSION-DATA`).
    var masterTags: [HLSTag] = []

    /// RFC 6381 codec of every audio rendition: each is AAC-LC, as it is or re-encoded.
    static let audioCodec = "mp4a.40.2"
    /// The GROUP-ID of the audio renditions; every variant names it.
    static let audioGroup = "audio"

    /// A VOD media playlist of `uris` with their durations, the profile's tags, `keys` before the
    /// first segment and, when given, the map (a subtitle rendition has none). Re-read by our
    /// lenient parser before it is returned.
    func media(id: String, uris: [String], durations: [Double], map: String?, keys: [HLSKey] = []) throws(PackagerError) -> Data {
        var segments = zip(uris, durations).map { HLSSegment(duration: $1, uri: $0) }
        if !segments.isEmpty {
            segments[0].otherTags = mediaTags
            segments[0].map = map.map { HLSMap(uri: $0) }
            segments[0].keys = keys
        }
        let playlist = HLSMediaPlaylist(version: mediaVersion, targetDuration: HLSFPSv2.targetDuration(for: durations), mediaSequence: 0,
                                        playlistType: .vod, independentSegments: true, segments: segments, endList: true)
        do {
            let data = try HLSWriter.data(.media(playlist))
            _ = try HLSParser.parseMedia(data, mode: .lenient)
            return data
        } catch {
            throw PackagerError(.malformedInput, "the \(id) playlist could not be written: \(error.reason)")
        }
    }

    /// `master.m3u8` (RFC 8216 §4.3.4): the audio renditions (the first DEFAULT, each
    /// AUTOSELECT, LANGUAGE, NAME from the language, CHANNELS), then a variant per video rendition
    /// in input order with BANDWIDTH and AVERAGE-BANDWIDTH per §4.3.4.2 over the written segment
    /// bytes (its own rate plus the audio group's largest), CODECS, RESOLUTION, FRAME-RATE and the
    /// groups; the profile's tags. Checked by our parser and the rendition-group rules before it
    /// is written.
    func master(sources: TDFHLSSources, videoRates: [HLSBitRate], audioRates: [HLSBitRate],
                subtitles: [HLSRendition] = []) throws(PackagerError) -> Data {
        var renditions: [HLSRendition] = []
        var names = Set<String>()
        for (n, audio) in sources.audio.enumerated() {
            var name = LanguageTag.displayName(audio.language)
            if names.contains(name) { name += " \(n + 1)" }
            names.insert(name)
            renditions.append(HLSRendition(type: .audio, groupID: Self.audioGroup, name: name, language: audio.language,
                                           isDefault: n == 0, autoselect: true, channels: String(audio.channels), uri: "\(audio.id).m3u8"))
        }
        let hasAudio = !sources.audio.isEmpty
        let variants = zip(sources.variants, videoRates).map { variant, rate in
            let total = HLSBitRate.variant(rate, groups: [audioRates])
            return HLSVariant(uri: "\(variant.id).m3u8", bandwidth: total.peak, averageBandwidth: total.average,
                              codecs: [variant.attributes.codec] + (hasAudio ? [Self.audioCodec] : []),
                              resolution: variant.attributes.resolution, frameRate: variant.attributes.frameRate,
                              audio: hasAudio ? Self.audioGroup : nil, subtitles: subtitles.first?.groupID)
        }
        renditions += subtitles
        return try Self.checkedMaster(HLSMasterPlaylist(version: 7, independentSegments: true, renditions: renditions,
                                                        variants: variants, otherTags: masterTags))
    }

    /// `master` written, once its rendition groups are checked and the written bytes re-read by
    /// our parser (the VOD master and the live one, `LivePlaylists`).
    static func checkedMaster(_ master: HLSMasterPlaylist) throws(PackagerError) -> Data {
        do {
            try master.checkRenditionGroups()
            let data = try HLSWriter.data(.master(master))
            try HLSParser.parseMaster(data, mode: .lenient).checkRenditionGroups()
            return data
        } catch {
            throw PackagerError(.malformedInput, "the master playlist could not be written: \(error.reason)")
        }
    }
}
