/// `EXT-X-MEDIA`: one alternative rendition. Written as TYPE, GROUP-ID, NAME, LANGUAGE,
/// ASSOC-LANGUAGE, DEFAULT, AUTOSELECT, FORCED, INSTREAM-ID, CHARACTERISTICS, CHANNELS, URI, then
/// `otherAttributes` (the order of fps-v2 Appendix A.3). DEFAULT, AUTOSELECT and FORCED are
/// written only when YES, since NO is their default.
public struct HLSRendition: Sendable, Equatable, Hashable {
    public enum MediaType: String, Sendable, Equatable, Hashable, CaseIterable {
        case audio = "AUDIO"
        case video = "VIDEO"
        case subtitles = "SUBTITLES"
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    public var type: MediaType
    public var groupID: String
    public var name: String
    public var language: String?
    public var assocLanguage: String?
    public var isDefault: Bool
    public var autoselect: Bool
    public var forced: Bool
    public var instreamID: String?
    public var characteristics: String?
    public var channels: String?
    public var uri: String?
    public var otherAttributes: [HLSAttribute]

    public init(type: MediaType, groupID: String, name: String, language: String? = nil, assocLanguage: String? = nil,
                isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false, instreamID: String? = nil,
                characteristics: String? = nil, channels: String? = nil, uri: String? = nil,
                otherAttributes: [HLSAttribute] = []) {
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.assocLanguage = assocLanguage
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.instreamID = instreamID
        self.characteristics = characteristics
        self.channels = channels
        self.uri = uri
        self.otherAttributes = otherAttributes
    }

    static let knownNames: Set<String> = ["TYPE", "GROUP-ID", "NAME", "LANGUAGE", "ASSOC-LANGUAGE", "DEFAULT", "AUTOSELECT",
                                          "FORCED", "INSTREAM-ID", "CHARACTERISTICS", "CHANNELS", "URI"]

    init(attributes list: HLSAttributeList) throws(HLSError) {
        guard let t = try list.enumeratedString("TYPE") else {
            throw HLSError(.missingAttribute, "EXT-X-MEDIA without TYPE", line: list.line)
        }
        guard let type = MediaType(rawValue: t) else {
            throw HLSError(.invalidValue, "EXT-X-MEDIA TYPE must be AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS", line: list.line)
        }
        guard let groupID = try list.quotedString("GROUP-ID") else {
            throw HLSError(.missingAttribute, "EXT-X-MEDIA without GROUP-ID", line: list.line)
        }
        guard let name = try list.quotedString("NAME") else {
            throw HLSError(.missingAttribute, "EXT-X-MEDIA without NAME", line: list.line)
        }
        self.type = type
        self.groupID = groupID
        self.name = name
        language = try list.quotedString("LANGUAGE")
        assocLanguage = try list.quotedString("ASSOC-LANGUAGE")
        isDefault = try list.yesNo("DEFAULT") ?? false
        autoselect = try list.yesNo("AUTOSELECT") ?? false
        forced = try list.yesNo("FORCED") ?? false
        instreamID = try list.quotedString("INSTREAM-ID")
        characteristics = try list.quotedString("CHARACTERISTICS")
        channels = try list.quotedString("CHANNELS")
        uri = try list.quotedString("URI")
        otherAttributes = list.others(excluding: Self.knownNames)
        // RFC 8216 §4.3.4.1: CLOSED-CAPTIONS renditions have no URI and need INSTREAM-ID.
        if type == .closedCaptions {
            guard uri == nil else { throw HLSError(.unexpectedAttribute, "CLOSED-CAPTIONS rendition with URI", line: list.line) }
            guard instreamID != nil else { throw HLSError(.missingAttribute, "CLOSED-CAPTIONS rendition without INSTREAM-ID", line: list.line) }
        }
    }

    var attributeList: [HLSAttribute] {
        var out: [HLSAttribute] = [.unquoted("TYPE", type.rawValue), .quoted("GROUP-ID", groupID), .quoted("NAME", name)]
        if let language { out.append(.quoted("LANGUAGE", language)) }
        if let assocLanguage { out.append(.quoted("ASSOC-LANGUAGE", assocLanguage)) }
        if isDefault { out.append(.unquoted("DEFAULT", "YES")) }
        if autoselect { out.append(.unquoted("AUTOSELECT", "YES")) }
        if forced { out.append(.unquoted("FORCED", "YES")) }
        if let instreamID { out.append(.quoted("INSTREAM-ID", instreamID)) }
        if let characteristics { out.append(.quoted("CHARACTERISTICS", characteristics)) }
        if let channels { out.append(.quoted("CHANNELS", channels)) }
        if let uri { out.append(.quoted("URI", uri)) }
        return out + otherAttributes
    }
}
