/// Builds an `HLSMasterPlaylist` from lines (both modes; strict mode has already checked them).
enum HLSMasterBuilder {
    static func build(_ lines: [HLSLine], limits: HLSLimits) throws(HLSError) -> HLSMasterPlaylist {
        var playlist = HLSMasterPlaylist()
        var seen = Set<String>()
        var i = 0
        while i < lines.count {
            let line = lines[i]
            i += 1
            guard case .tag(let name, let value) = line.kind else {
                throw HLSError(.unexpectedURI, "URI line without EXT-X-STREAM-INF", line: line.number)
            }
            switch name {
            case "EXTM3U":
                throw HLSError(.duplicateTag, "#EXTM3U appears twice", line: line.number)
            case "EXT-X-VERSION":
                guard seen.insert(name).inserted else { throw HLSError(.duplicateTag, "EXT-X-VERSION appears twice", line: line.number) }
                playlist.version = try HLSParser.integerValue(value, tag: name, line: line.number)
            case "EXT-X-INDEPENDENT-SEGMENTS":
                guard seen.insert(name).inserted else { throw HLSError(.duplicateTag, "EXT-X-INDEPENDENT-SEGMENTS appears twice", line: line.number) }
                try HLSParser.noValue(value, tag: name, line: line.number)
                playlist.independentSegments = true
            case "EXT-X-MEDIA":
                let list = try HLSParser.attributes(value, line: line.number, limits: limits)
                playlist.renditions.append(try HLSRendition(attributes: list))
            case "EXT-X-STREAM-INF":
                let list = try HLSParser.attributes(value, line: line.number, limits: limits)
                guard i < lines.count, case .uri(let uri) = lines[i].kind else {
                    throw HLSError(.missingURI, "EXT-X-STREAM-INF is not followed by its URI line", line: line.number)
                }
                i += 1
                playlist.variants.append(try HLSVariant(attributes: list, uri: uri))
            case "EXT-X-I-FRAME-STREAM-INF":
                let list = try HLSParser.attributes(value, line: line.number, limits: limits)
                playlist.iFrameVariants.append(try HLSIFrameVariant(attributes: list))
            case "EXT-X-SESSION-KEY":
                let list = try HLSParser.attributes(value, line: line.number, limits: limits)
                let key = try HLSKey(attributes: list)
                guard key.method != .none else {
                    throw HLSError(.invalidValue, "EXT-X-SESSION-KEY must not use METHOD=NONE", line: line.number)
                }
                playlist.sessionKeys.append(key)
            default:
                playlist.otherTags.append(HLSTag(name: name, value: value))
            }
        }
        return playlist
    }
}
