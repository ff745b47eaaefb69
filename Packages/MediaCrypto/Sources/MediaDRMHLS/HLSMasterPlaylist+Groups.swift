extension HLSMasterPlaylist {
    /// The rendition-group rules of RFC 8216 that span several tags, which a line-by-line parse
    /// does not see: every AUDIO, VIDEO and SUBTITLES group a variant names exists with that TYPE
    /// (§4.3.4.2); within a group, NAMEs are unique and at most one rendition is DEFAULT
    /// (§4.3.4.1.1); a DEFAULT rendition is AUTOSELECT and a SUBTITLES rendition has a URI
    /// (§4.3.4.1). Readers call it after parsing, writers before writing.
    public func checkRenditionGroups() throws(HLSError) {
        var groups: [String: [HLSRendition]] = [:]
        for rendition in renditions {
            groups["\(rendition.type.rawValue)/\(rendition.groupID)", default: []].append(rendition)
            if rendition.isDefault, !rendition.autoselect {
                throw HLSError(.inconsistent, "an EXT-X-MEDIA with DEFAULT=YES must also have AUTOSELECT=YES (RFC 8216 §4.3.4.1)")
            }
            if rendition.type == .subtitles, rendition.uri == nil {
                throw HLSError(.missingAttribute, "a SUBTITLES rendition needs a URI (RFC 8216 §4.3.4.1)")
            }
        }
        for members in groups.values {
            guard Set(members.map(\.name)).count == members.count else {
                throw HLSError(.inconsistent, "two renditions of one group share a NAME (RFC 8216 §4.3.4.1.1)")
            }
            guard members.filter(\.isDefault).count <= 1 else {
                throw HLSError(.inconsistent, "more than one rendition of a group is DEFAULT=YES (RFC 8216 §4.3.4.1.1)")
            }
        }
        for variant in variants {
            let named: [(HLSRendition.MediaType, String?)] = [(.audio, variant.audio), (.video, variant.video),
                                                              (.subtitles, variant.subtitles)]
            for case let (type, group?) in named where groups["\(type.rawValue)/\(group)"] == nil {
                throw HLSError(.inconsistent,
                               "an EXT-X-STREAM-INF names a \(type.rawValue) group that no EXT-X-MEDIA of that TYPE has (RFC 8216 §4.3.4.2)")
            }
        }
    }
}
