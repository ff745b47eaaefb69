import Foundation
import MediaDRMHLS

/// The playlists of a live tdf-hls stream: a sliding media playlist per component (RFC 8216
/// §6.2.2: no playlist type, `EXT-X-MEDIA-SEQUENCE` and `EXT-X-DISCONTINUITY-SEQUENCE` advancing
/// as segments leave, `EXT-X-PROGRAM-DATE-TIME` on every segment, `EXT-X-ENDLIST` only once the
/// input ended) and the master, written once. The profile's markers are VOD tdf-hls's
/// (`TDFHLSPackager.playlists`).
enum LivePlaylists {
    static func media(id: String, segments: [LiveState.Segment], targetDuration: Int, ended: Bool) throws(PackagerError) -> Data {
        guard let first = segments.first else { throw PackagerError(.invalidArgument, "a live playlist needs a segment") }
        var previousEpoch: Int?
        let written = segments.enumerated().map { n, segment in
            var hls = HLSSegment(duration: segment.duration, uri: TDFHLSPackager.segmentName(id, segment.sequence),
                                 discontinuity: segment.discontinuity, programDateTime: segment.programDateTime)
            if n == 0 { hls.otherTags = TDFHLSPackager.playlists.mediaTags }
            if segment.initEpoch != previousEpoch { hls.map = HLSMap(uri: LiveState.initName(id, epoch: segment.initEpoch)) }
            previousEpoch = segment.initEpoch
            return hls
        }
        // The first listed segment's discontinuity sequence number: the tags before it.
        let discontinuitySequence = first.discontinuities - (first.discontinuity ? 1 : 0)
        let playlist = HLSMediaPlaylist(version: TDFHLSPackager.playlists.mediaVersion, targetDuration: targetDuration,
                                        mediaSequence: first.sequence,
                                        discontinuitySequence: discontinuitySequence > 0 ? discontinuitySequence : nil,
                                        playlistType: nil, independentSegments: true, segments: written, endList: ended)
        do {
            let data = try HLSWriter.data(.media(playlist))
            _ = try HLSParser.parseMedia(data, mode: .lenient)
            return data
        } catch {
            throw PackagerError(.malformedInput, "the live \(id) playlist could not be written: \(error.reason)")
        }
    }

    /// `master.m3u8`: one variant (BANDWIDTH measured on the first segment, which is all a live
    /// packager has seen when it writes the master) and the audio rendition.
    static func master(video: VideoAttributes, bandwidth: Int, audio: (language: String, channels: Int)?) throws(PackagerError) -> Data {
        var renditions: [HLSRendition] = []
        if let audio {
            renditions.append(HLSRendition(type: .audio, groupID: StreamPlaylists.audioGroup, name: LanguageTag.displayName(audio.language),
                                           language: audio.language, isDefault: true, autoselect: true, channels: String(audio.channels),
                                           uri: "audio.m3u8"))
        }
        let variant = HLSVariant(uri: "video.m3u8", bandwidth: bandwidth, averageBandwidth: bandwidth,
                                 codecs: [video.codec] + (audio == nil ? [] : [StreamPlaylists.audioCodec]),
                                 resolution: video.resolution, frameRate: video.frameRate,
                                 audio: audio == nil ? nil : StreamPlaylists.audioGroup, subtitles: nil)
        return try StreamPlaylists.checkedMaster(HLSMasterPlaylist(version: 7, independentSegments: true, renditions: renditions,
                                                                   variants: [variant], otherTags: TDFHLSPackager.playlists.masterTags))
    }
}
