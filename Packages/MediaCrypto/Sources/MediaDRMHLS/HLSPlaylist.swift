// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// A parsed playlist: a master playlist lists variants and renditions, a media playlist lists
/// segments. The kind follows from the tags present (RFC 8216 §4.3.4 vs §4.3.2-§4.3.3).
public enum HLSPlaylist: Sendable, Equatable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)

    public var master: HLSMasterPlaylist? {
        if case .master(let m) = self { return m }
        return nil
    }

    public var media: HLSMediaPlaylist? {
        if case .media(let m) = self { return m }
        return nil
    }
}
