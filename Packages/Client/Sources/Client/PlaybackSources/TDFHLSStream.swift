import Foundation
import MediaDRMHLS

/// A tdf-hls stream (docs/formats.md): a master playlist with the profile marker
/// `#EXT-X-SESSION-DATA:DATA-ID="net.arkavo.profile",VALUE="tdf-hls"`, one or more video
/// variants and an audio group, each an RFC 8216 media playlist with a clear init (`EXT-X-MAP`)
/// and Standard TDF segments. Opening picks one variant and one audio rendition
/// (`TDFHLSRenditionChoice`) and reads their playlists and inits only, never a segment.
struct TDFHLSStream: @unchecked Sendable {
    struct Component {
        let id: String
        let segments: [String]
        /// The media playlist's URI and the init's (`EXT-X-MAP`), which a live playback reloads and checks.
        var playlistURI = ""
        var initURI = ""
    }

    let loader: any ResourceLoader
    let components: [Component]
    let inits: [ClearInitSegment]
    /// The chosen subtitle rendition, when `choice.subtitles` asked for one.
    var subtitles: TDFHLSSubtitles?
    /// The media playlists have no `EXT-X-ENDLIST` (docs/live.md): the segments listed are the
    /// live window when the stream was opened, and the inits are those of its newest segment.
    var isLive = false

    static let maximumPlaylistBytes = 1 << 20
    static let maximumInitBytes = 1 << 20
    static let maximumSegments = 100_000

    static func open(loader: any ResourceLoader, masterName: String,
                     choice: TDFHLSRenditionChoice = TDFHLSRenditionChoice()) throws(PlaybackError) -> TDFHLSStream {
        let masterBytes = try loader.load(masterName, maxBytes: maximumPlaylistBytes)
        let master: HLSMasterPlaylist
        do {
            master = try HLSParser.parseMaster(masterBytes)
        } catch {
            throw PlaybackError(.invalidSource, "the master playlist is not a valid HLS master playlist")
        }
        guard master.otherTags.contains(where: isProfileMarker) else {
            throw PlaybackError(.invalidSource, "the master playlist does not carry the tdf-hls profile marker")
        }
        do { try master.checkRenditionGroups() } catch {
            throw PlaybackError(.invalidSource, "the master playlist breaks an RFC 8216 rendition-group rule: \(error.reason)")
        }
        let variant = master.variants[try choice.variantIndex(in: master)]
        var playlists: [(String, String)] = [(componentID(variant.uri), variant.uri)]
        if let rendition = try choice.audioRendition(of: variant.audio, in: master) {
            guard let uri = rendition.uri else { throw PlaybackError(.invalidSource, "the audio rendition has no URI") }
            playlists.append((componentID(uri), uri))
        }
        var components: [Component] = []
        var inits: [ClearInitSegment] = []
        var live: Bool?
        for (id, uri) in playlists {
            let media: HLSMediaPlaylist
            do {
                media = try HLSParser.parseMedia(try loader.load(uri, maxBytes: maximumPlaylistBytes))
            } catch {
                throw PlaybackError(.invalidSource, "the \(id) playlist is not a valid HLS media playlist")
            }
            guard !media.segments.isEmpty, media.segments.count <= maximumSegments else {
                throw PlaybackError(.invalidSource, "the \(id) playlist does not list 1 to \(maximumSegments) segments")
            }
            guard live.map({ $0 == !media.endList }) ?? true else {
                throw PlaybackError(.invalidSource, "the \(id) playlist is finished and another of the stream's is live, or the reverse")
            }
            live = !media.endList
            // A live window may hold an earlier init before a discontinuity; the newest is played.
            guard let map = media.effectiveMap(forSegment: media.segments.count - 1), map.byteRange == nil,
                  !media.endList || media.segments.indices.allSatisfy({ media.effectiveMap(forSegment: $0) == map }) else {
                throw PlaybackError(.invalidSource, "the \(id) playlist does not name one init segment")
            }
            guard media.segments.allSatisfy({ $0.byteRange == nil && $0.uri.hasSuffix(".tdf") }) else {
                throw PlaybackError(.invalidSource, "a \(id) segment is not a whole .tdf resource")
            }
            components.append(Component(id: id, segments: media.segments.map(\.uri), playlistURI: uri, initURI: map.uri))
            inits.append(try clearInit(map.uri, of: id, loader: loader))
        }
        let subtitles = try choice.subtitleRendition(of: variant.subtitles, in: master)
            .map { (rendition) throws(PlaybackError) in try TDFHLSSubtitles.open(rendition, loader: loader) }
        return TDFHLSStream(loader: loader, components: components, inits: inits, subtitles: subtitles, isLive: live ?? false)
    }

    /// The clear init segment at `uri` of component `id` (also a live stream's new init after a
    /// restart whose encoder changed its tracks): clear, one track.
    static func clearInit(_ uri: String, of id: String, loader: any ResourceLoader) throws(PlaybackError) -> ClearInitSegment {
        let initBytes = try loader.load(uri, maxBytes: maximumInitBytes)
        let clear: ClearInitSegment
        do {
            clear = try InitSegmentRewriter.rewrite([UInt8](initBytes))
        } catch {
            throw PlaybackError.media(error, "\(id) init segment")
        }
        guard clear.protections.isEmpty, clear.trackIDs.count == 1 else {
            throw PlaybackError(.invalidSource, "a tdf-hls init must be clear and hold one track")
        }
        return clear
    }

    /// The component a media playlist holds, named as the packager names it: `video-2.m3u8` is
    /// `video-2`.
    static func componentID(_ uri: String) -> String {
        let name = uri.split(separator: "/").last.map(String.init) ?? uri
        return name.hasSuffix(".m3u8") ? String(name.dropLast(5)) : name
    }

    static func isProfileMarker(_ tag: HLSTag) -> Bool {
        guard tag.name == "EXT-X-SESSION-DATA", let value = tag.value else { return false }
        return value.contains(#"DATA-ID="net.arkavo.profile""#) && value.contains(#"VALUE="tdf-hls""#)
    }
}
