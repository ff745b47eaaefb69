// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// A media playlist. The writer emits, after `#EXTM3U`: EXT-X-VERSION, EXT-X-TARGETDURATION,
/// EXT-X-MEDIA-SEQUENCE, EXT-X-DISCONTINUITY-SEQUENCE, EXT-X-PLAYLIST-TYPE, EXT-X-I-FRAMES-ONLY,
/// EXT-X-INDEPENDENT-SEGMENTS, each segment, `trailingTags`, and EXT-X-ENDLIST.
public struct HLSMediaPlaylist: Sendable, Equatable {
    public enum PlaylistType: String, Sendable, Equatable, Hashable {
        case event = "EVENT"
        case vod = "VOD"
    }

    public var version: Int?
    public var targetDuration: Int
    /// nil when the tag is absent (its value is then 0); kept apart from 0 so a playlist keeps
    /// its exact tag set.
    public var mediaSequence: Int?
    public var discontinuitySequence: Int?
    public var playlistType: PlaylistType?
    public var iFramesOnly: Bool
    public var independentSegments: Bool
    public var segments: [HLSSegment]
    /// Uninterpreted tags after the last segment (lenient mode).
    public var trailingTags: [HLSTag]
    public var endList: Bool

    public init(version: Int? = nil, targetDuration: Int, mediaSequence: Int? = nil, discontinuitySequence: Int? = nil,
                playlistType: PlaylistType? = nil, iFramesOnly: Bool = false, independentSegments: Bool = false,
                segments: [HLSSegment] = [], trailingTags: [HLSTag] = [], endList: Bool = false) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.iFramesOnly = iFramesOnly
        self.independentSegments = independentSegments
        self.segments = segments
        self.trailingTags = trailingTags
        self.endList = endList
    }

    /// Sum of the EXTINF durations (fps-v2 §9.4).
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// The keys in force for segment `index` under RFC 8216 §4.3.2.4: each EXT-X-KEY applies
    /// until one of the same KEYFORMAT replaces it, and METHOD=NONE clears them all.
    public func effectiveKeys(forSegment index: Int) -> [HLSKey] {
        guard index >= 0, index < segments.count else { return [] }
        var keys: [HLSKey] = []
        for segment in segments[0...index] {
            for key in segment.keys {
                if key.method == .none { keys.removeAll(); continue }
                let format = key.keyFormat ?? "identity"
                keys.removeAll { ($0.keyFormat ?? "identity") == format }
                keys.append(key)
            }
        }
        return keys
    }

    /// The EXT-X-MAP in force for segment `index`: the nearest one at or before it.
    public func effectiveMap(forSegment index: Int) -> HLSMap? {
        guard index >= 0, index < segments.count else { return nil }
        for segment in segments[0...index].reversed() {
            if let map = segment.map { return map }
        }
        return nil
    }
}
