import Foundation
import MediaDRMHLS
import MediaDRMTDF
import MediaDRMWebVTT

/// Writes the subtitle renditions of a tdf-hls package (docs/formats.md, "Subtitles"): each
/// WebVTT file cut at the video's segment boundaries (`WebVTTSegmenter`: a cue that spans a
/// boundary is in both segments), every segment with `X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000`
/// (RFC 8216 §3.5: cue time 0 is the first presented frame, media time 0 of every rendition), and
/// one media playlist per language with the video's segment durations and the profile marker. Segments are clear
/// `.vtt` files, or with `protect` each a Standard TDF (`.tdf`) as the media segments are.
///
/// Returns what the master playlist needs for each rendition, as `EXT-X-MEDIA` values: TYPE
/// SUBTITLES, GROUP-ID `subs`, NAME from the language, LANGUAGE, AUTOSELECT YES, DEFAULT NO (a
/// viewer turns subtitles on), URI.
public enum SubtitleRenditions {
    /// The GROUP-ID of every subtitle rendition; a variant names it in SUBTITLES.
    public static let groupID = "subs"
    public static let mimeType = "text/vtt"

    /// - Parameters:
    ///   - boundaries: the video's segment boundaries in `timescale` units (segments + 1 values).
    ///   - durations: the video's `#EXTINF` durations, one per segment.
    ///   - protect: the TDF options of a protected segment; nil writes clear `.vtt` segments.
    ///   - playlists: the profile's media playlists (tdf-hls's unless told).
    ///   - segmentName: the file of segment `n` (from 0) of a rendition, with its extension.
    ///   - add: stores one file of the package.
    static func write(_ inputs: [SubtitleInput], boundaries: [Int64], timescale: UInt32, durations: [Double],
                      protect: TDFEncryptOptions?, playlists: StreamPlaylists = TDFHLSPackager.playlists,
                      segmentName: (_ id: String, _ n: Int, _ extension: String) -> String = TDFHLSPackager.subtitleSegmentName,
                      add: (String, [UInt8]) throws(PackagerError) -> Void) throws(PackagerError) -> [HLSRendition] {
        var renditions: [HLSRendition] = []
        var ids = Set<String>(), names = Set<String>()
        let map = WebVTTTimestampMap(mpegts: 0, local: 0)
        for input in inputs {
            let file = try input.read()
            var id = "subtitles-\(input.language.lowercased())"
            if ids.contains(id) { id += "-\(renditions.count + 1)" }
            ids.insert(id)
            var name = LanguageTag.displayName(input.language)
            if names.contains(name) { name += " \(renditions.count + 1)" }
            names.insert(name)
            let segments: [[UInt8]]
            do { segments = try WebVTTSegmenter.segments(of: file, boundaries: boundaries, timescale: timescale, map: map) } catch {
                throw PackagerError(.malformedInput, "the subtitles '\(input.path)' could not be cut: \(error.reason)")
            }
            var uris: [String] = []
            for (n, segment) in segments.enumerated() {
                let uri = segmentName(id, n, protect == nil ? "vtt" : "tdf")
                if let protect {
                    let archive: Data
                    do { archive = try TDF.encrypt(Data(segment), options: protect) } catch {
                        throw PackagerError(.cryptoFailure, "\(id) segment \(n) could not be written as a TDF: \(error.reason)")
                    }
                    try add(uri, Array(archive))
                } else {
                    try add(uri, segment)
                }
                uris.append(uri)
            }
            // No map: WebVTT needs no init segment.
            try add("\(id).m3u8", Array(try playlists.media(id: id, uris: uris, durations: durations, map: nil)))
            renditions.append(HLSRendition(type: .subtitles, groupID: groupID, name: name, language: input.language,
                                           isDefault: false, autoselect: true, uri: "\(id).m3u8"))
        }
        return renditions
    }
}
