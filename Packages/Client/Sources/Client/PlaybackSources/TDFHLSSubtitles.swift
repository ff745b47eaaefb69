import Foundation
import MediaDRMHLS
import MediaDRMWebVTT

/// The subtitle rendition a tdf-hls playback reads (docs/formats.md, "Subtitles"): a media
/// playlist of WebVTT segments, all clear `.vtt` or all Standard TDF `.tdf`, cut at the video's
/// boundaries with a cue spanning a boundary repeated. Reassembled into one WebVTT file, each
/// repeat taken once (`WebVTTReassembler`).
struct TDFHLSSubtitles: Sendable {
    let id: String
    let language: String?
    let segments: [String]
    /// The segments are Standard TDFs whose keys come with the media's.
    let isProtected: Bool

    static let maximumSegmentBytes = WebVTTLimits().maximumBytes

    static func open(_ rendition: HLSRendition, loader: any ResourceLoader) throws(PlaybackError) -> TDFHLSSubtitles {
        guard let uri = rendition.uri else { throw PlaybackError(.invalidSource, "the subtitle rendition has no URI") }
        let id = TDFHLSStream.componentID(uri)
        let media: HLSMediaPlaylist
        do {
            media = try HLSParser.parseMedia(try loader.load(uri, maxBytes: TDFHLSStream.maximumPlaylistBytes))
        } catch {
            throw PlaybackError(.invalidSource, "the \(id) playlist is not a valid HLS media playlist")
        }
        guard !media.segments.isEmpty, media.segments.count <= TDFHLSStream.maximumSegments, media.endList else {
            throw PlaybackError(.invalidSource, "the \(id) playlist is not a finished list of 1 to \(TDFHLSStream.maximumSegments) segments")
        }
        let uris = media.segments.map(\.uri)
        let isProtected = uris.allSatisfy { $0.hasSuffix(".tdf") }
        guard media.segments.allSatisfy({ $0.byteRange == nil }), isProtected || uris.allSatisfy({ $0.hasSuffix(".vtt") }),
              media.effectiveMap(forSegment: 0) == nil else {
            throw PlaybackError(.invalidSource, "the \(id) playlist must list whole .vtt or whole .tdf segments and no map")
        }
        return TDFHLSSubtitles(id: id, language: rendition.language, segments: uris, isProtected: isProtected)
    }

    /// Reads every segment (`clear` gives a protected one's plaintext) and merges them.
    func reassemble(loader: any ResourceLoader,
                    clear: (Int) throws(PlaybackError) -> [UInt8]) throws(PlaybackError) -> WebVTTFile {
        var files: [WebVTTFile] = []
        for (n, uri) in segments.enumerated() {
            let bytes = isProtected ? try clear(n) : [UInt8](try loader.load(uri, maxBytes: Self.maximumSegmentBytes))
            do { files.append(try WebVTTFile(parsing: bytes)) } catch {
                throw PlaybackError(.invalidSource, "\(id) segment \(n) is not valid WebVTT: \(error.reason)")
            }
        }
        return WebVTTReassembler.file(of: files)
    }
}
