import MediaDRMHLS

/// Which renditions of a tdf-hls master a playback presents (docs/formats.md, "tdf-hls"): one
/// video variant and, when the variant names an audio group, one audio rendition of it.
///
/// The variant is `variant` (counted from 1 in master-playlist order) when given; otherwise the
/// highest BANDWIDTH among those within `maxHeight` (RESOLUTION) and `maxBandwidth`. The audio
/// rendition is the first whose LANGUAGE is `audioLanguage` or starts with it and a hyphen (BCP 47
/// prefix matching, RFC 4647 §3.3.1), case-insensitively; without a language, the group's DEFAULT
/// rendition, else its first.
public struct TDFHLSRenditionChoice: Sendable, Equatable {
    public var variant: Int?
    public var maxHeight: Int?
    public var maxBandwidth: Int?
    public var audioLanguage: String?
    /// Whether the variant's subtitle rendition is read (`PlaybackSession.subtitles`), and in
    /// which language (`TDFHLSRenditionChoice+Subtitles.swift`).
    public var subtitles: Bool
    public var subtitleLanguage: String?

    public init(variant: Int? = nil, maxHeight: Int? = nil, maxBandwidth: Int? = nil, audioLanguage: String? = nil,
                subtitles: Bool = false, subtitleLanguage: String? = nil) {
        self.variant = variant
        self.maxHeight = maxHeight
        self.maxBandwidth = maxBandwidth
        self.audioLanguage = audioLanguage
        self.subtitles = subtitles || subtitleLanguage != nil
        self.subtitleLanguage = subtitleLanguage
    }

    /// The chosen variant's index in `master.variants`.
    func variantIndex(in master: HLSMasterPlaylist) throws(PlaybackError) -> Int {
        guard !master.variants.isEmpty else { throw PlaybackError(.invalidSource, "the master playlist has no variant") }
        if let variant {
            guard (1 ... master.variants.count).contains(variant) else {
                throw PlaybackError(.invalidArgument, "variant \(variant) was asked for; the master playlist has \(master.variants.count) (1 to \(master.variants.count))")
            }
            return variant - 1
        }
        let fitting = master.variants.indices.filter { i in
            let v = master.variants[i]
            return (maxHeight.map { limit in (v.resolution?.height ?? 0) <= limit } ?? true)
                && (maxBandwidth.map { v.bandwidth <= $0 } ?? true)
        }
        guard let best = fitting.max(by: { Self.rank(master.variants[$0]) < Self.rank(master.variants[$1]) }) else {
            let lowest = master.variants.min { Self.rank($0) < Self.rank($1) }
            let described = lowest.map { "\($0.resolution?.description ?? "no resolution") at \($0.bandwidth) bit/s" } ?? ""
            throw PlaybackError(.invalidArgument, "no variant is within "
                                + [maxHeight.map { "--max-height \($0)" }, maxBandwidth.map { "--max-bandwidth \($0)" }].compactMap { $0 }.joined(separator: " and ")
                                + "; the smallest is \(described)")
        }
        return best
    }

    /// The chosen audio rendition of `group`, nil when the variant has no audio group.
    func audioRendition(of group: String?, in master: HLSMasterPlaylist) throws(PlaybackError) -> HLSRendition? {
        guard let group else {
            if let audioLanguage { throw PlaybackError(.invalidArgument, "--audio-lang \(audioLanguage) was asked for; the chosen variant has no audio") }
            return nil
        }
        return try Self.pick(.audio, group: group, language: audioLanguage, in: master)
    }

    /// The member of `group` in `language` (the first whose LANGUAGE matches), else its
    /// DEFAULT rendition, else its first.
    static func pick(_ type: HLSRendition.MediaType, group: String, language: String?,
                     in master: HLSMasterPlaylist) throws(PlaybackError) -> HLSRendition {
        let kind = type == .audio ? "audio" : "subtitle"
        let members = master.renditions.filter { $0.type == type && $0.groupID == group }
        guard let first = members.first else { throw PlaybackError(.invalidSource, "the variant's \(kind) group has no rendition") }
        guard let wanted = language?.lowercased() else { return members.first(where: \.isDefault) ?? first }
        guard let match = members.first(where: { Self.matches($0, wanted) }) else {
            throw PlaybackError(.invalidArgument, "no \(kind) rendition in language '\(language ?? "")'; the stream has "
                                + members.map { $0.language ?? "und" }.joined(separator: ", "))
        }
        return match
    }

    /// LANGUAGE is `wanted` (lower case) or starts with it and a hyphen.
    static func matches(_ rendition: HLSRendition, _ wanted: String) -> Bool {
        guard let language = rendition.language?.lowercased() else { return false }
        return language == wanted || language.hasPrefix(wanted + "-")
    }

    /// Higher bandwidth first, then the taller picture.
    static func rank(_ variant: HLSVariant) -> (Int, Int) { (variant.bandwidth, variant.resolution?.height ?? 0) }
}
