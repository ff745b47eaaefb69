/// One media segment with the segment tags written immediately before it. `keys` and `map` are
/// the EXT-X-KEY and EXT-X-MAP tags that appear before this segment (after the previous one);
/// `HLSMediaPlaylist.effectiveKeys(forSegment:)` gives the ones in force. Written as
/// `otherTags`, keys, map, EXT-X-DISCONTINUITY, EXT-X-PROGRAM-DATE-TIME, EXT-X-BYTERANGE,
/// EXTINF (at least five decimals, as fps-v2 Appendix A.3), URI.
public struct HLSSegment: Sendable, Equatable {
    public var duration: Double
    /// The EXTINF title; empty when there is none.
    public var title: String
    public var uri: String
    public var byteRange: HLSByteRange?
    public var discontinuity: Bool
    /// The EXT-X-PROGRAM-DATE-TIME value as written (ISO 8601), kept as text so it round-trips
    /// at any precision.
    public var programDateTime: String?
    public var keys: [HLSKey]
    public var map: HLSMap?
    /// Uninterpreted tags before this segment (lenient mode).
    public var otherTags: [HLSTag]

    public init(duration: Double, uri: String, title: String = "", byteRange: HLSByteRange? = nil,
                discontinuity: Bool = false, programDateTime: String? = nil, keys: [HLSKey] = [],
                map: HLSMap? = nil, otherTags: [HLSTag] = []) {
        self.duration = duration
        self.title = title
        self.uri = uri
        self.byteRange = byteRange
        self.discontinuity = discontinuity
        self.programDateTime = programDateTime
        self.keys = keys
        self.map = map
        self.otherTags = otherTags
    }
}
