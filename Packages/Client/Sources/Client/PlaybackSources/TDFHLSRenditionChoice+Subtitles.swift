// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMHLS

extension TDFHLSRenditionChoice {
    /// The chosen subtitle rendition of the variant's SUBTITLES group: the first whose LANGUAGE
    /// is `subtitleLanguage` or starts with it and a hyphen (BCP 47 prefix matching, RFC 4647
    /// §3.3.1), case-insensitively; without a language, the group's DEFAULT rendition, else its
    /// first. Nil when subtitles were not asked for.
    func subtitleRendition(of group: String?, in master: HLSMasterPlaylist) throws(PlaybackError) -> HLSRendition? {
        guard subtitles else { return nil }
        guard let group else {
            throw PlaybackError(.invalidArgument, "subtitles were asked for; the chosen variant has no SUBTITLES group")
        }
        return try Self.pick(.subtitles, group: group, language: subtitleLanguage, in: master)
    }
}
