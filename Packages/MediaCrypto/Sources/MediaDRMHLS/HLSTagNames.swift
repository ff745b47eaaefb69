/// Tag names by the playlist kind they belong to (RFC 8216 §4.3, plus the later tags of the
/// HLS second edition so they classify a playlist even though the model keeps them as `HLSTag`).
package enum HLSTagNames {
    static let masterOnly: Set<String> = [
        "EXT-X-MEDIA", "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-SESSION-DATA", "EXT-X-SESSION-KEY",
        "EXT-X-CONTENT-STEERING",
    ]

    static let mediaOnly: Set<String> = [
        "EXTINF", "EXT-X-BYTERANGE", "EXT-X-DISCONTINUITY", "EXT-X-KEY", "EXT-X-MAP", "EXT-X-PROGRAM-DATE-TIME",
        "EXT-X-DATERANGE", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
        "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-GAP", "EXT-X-BITRATE", "EXT-X-PART",
        "EXT-X-PART-INF", "EXT-X-SERVER-CONTROL", "EXT-X-SKIP", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT",
    ]

    static let either: Set<String> = ["EXTM3U", "EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-START", "EXT-X-DEFINE"]

    /// Every tag a specification defines; strict mode calls the others unknown.
    package static let known: Set<String> = masterOnly.union(mediaOnly).union(either)

    /// Tags the master model interprets; the writer refuses them as `otherTags`.
    static let masterModeled: Set<String> = [
        "EXTM3U", "EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-MEDIA", "EXT-X-STREAM-INF",
        "EXT-X-I-FRAME-STREAM-INF", "EXT-X-SESSION-KEY",
    ]

    /// Tags the media model interprets.
    static let mediaModeled: Set<String> = [
        "EXTM3U", "EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXTINF", "EXT-X-BYTERANGE", "EXT-X-DISCONTINUITY",
        "EXT-X-KEY", "EXT-X-MAP", "EXT-X-PROGRAM-DATE-TIME", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE",
        "EXT-X-DISCONTINUITY-SEQUENCE", "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY",
    ]
}
