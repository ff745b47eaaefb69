/// Builds an `HLSMediaPlaylist` from lines (both modes; strict mode has already checked them).
/// Segment tags collect until the URI line that closes the segment.
enum HLSMediaBuilder {
    private struct Pending {
        var extinf: (duration: Double, title: String)?
        var keys: [HLSKey] = []
        var map: HLSMap?
        var byteRange: HLSByteRange?
        var discontinuity = false
        var programDateTime: String?
        var otherTags: [HLSTag] = []

        var hasSegmentTags: Bool {
            extinf != nil || !keys.isEmpty || map != nil || byteRange != nil || discontinuity || programDateTime != nil
        }
    }

    static func build(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError) -> HLSMediaPlaylist {
        var version: Int?
        var targetDuration: Int?
        var mediaSequence: Int?
        var discontinuitySequence: Int?
        var playlistType: HLSMediaPlaylist.PlaylistType?
        var iFramesOnly = false
        var independent = false
        var endList = false
        var segments: [HLSSegment] = []
        var pending = Pending()
        var seen = Set<String>()

        for line in lines {
            let n = line.number
            switch line.kind {
            case .uri(let uri):
                guard let extinf = pending.extinf else {
                    throw HLSError(.missingTag, "segment URI without EXTINF", line: n)
                }
                guard segments.count < limits.maxSegments else {
                    throw HLSError(.tooManySegments, "playlist exceeds \(limits.maxSegments) segments", line: n)
                }
                segments.append(HLSSegment(duration: extinf.duration, uri: uri, title: extinf.title, byteRange: pending.byteRange,
                                           discontinuity: pending.discontinuity, programDateTime: pending.programDateTime,
                                           keys: pending.keys, map: pending.map, otherTags: pending.otherTags))
                pending = Pending()
            case .tag(let name, let value):
                switch name {
                case "EXTM3U":
                    throw HLSError(.duplicateTag, "#EXTM3U appears twice", line: n)
                case "EXT-X-VERSION", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
                     "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-ENDLIST":
                    guard seen.insert(name).inserted else { throw HLSError(.duplicateTag, "\(name) appears twice", line: n) }
                    switch name {
                    case "EXT-X-VERSION": version = try HLSParser.integerValue(value, tag: name, line: n)
                    case "EXT-X-TARGETDURATION": targetDuration = try HLSParser.integerValue(value, tag: name, line: n)
                    case "EXT-X-MEDIA-SEQUENCE": mediaSequence = try HLSParser.integerValue(value, tag: name, line: n)
                    case "EXT-X-DISCONTINUITY-SEQUENCE": discontinuitySequence = try HLSParser.integerValue(value, tag: name, line: n)
                    case "EXT-X-PLAYLIST-TYPE":
                        guard let value, let t = HLSMediaPlaylist.PlaylistType(rawValue: value) else {
                            throw HLSError(.invalidValue, "EXT-X-PLAYLIST-TYPE must be EVENT or VOD", line: n)
                        }
                        playlistType = t
                    case "EXT-X-I-FRAMES-ONLY":
                        try HLSParser.noValue(value, tag: name, line: n)
                        iFramesOnly = true
                    case "EXT-X-INDEPENDENT-SEGMENTS":
                        try HLSParser.noValue(value, tag: name, line: n)
                        independent = true
                    default:
                        try HLSParser.noValue(value, tag: name, line: n)
                        endList = true
                    }
                case "EXTINF":
                    guard pending.extinf == nil else { throw HLSError(.duplicateTag, "two EXTINF tags for one segment", line: n) }
                    pending.extinf = try extinf(value, line: n)
                case "EXT-X-KEY":
                    let list = try HLSParser.attributes(value, line: n, limits: limits)
                    pending.keys.append(try HLSKey(attributes: list))
                case "EXT-X-MAP":
                    guard pending.map == nil else { throw HLSError(.duplicateTag, "two EXT-X-MAP tags before one segment", line: n) }
                    pending.map = try HLSMap(attributes: try HLSParser.attributes(value, line: n, limits: limits))
                case "EXT-X-BYTERANGE":
                    guard pending.byteRange == nil else { throw HLSError(.duplicateTag, "two EXT-X-BYTERANGE tags for one segment", line: n) }
                    guard let value, let range = HLSByteRange(text: value) else {
                        throw HLSError(.invalidValue, "EXT-X-BYTERANGE must be <n>[@<o>]", line: n)
                    }
                    pending.byteRange = range
                case "EXT-X-DISCONTINUITY":
                    guard !pending.discontinuity else { throw HLSError(.duplicateTag, "two EXT-X-DISCONTINUITY tags for one segment", line: n) }
                    try HLSParser.noValue(value, tag: name, line: n)
                    pending.discontinuity = true
                case "EXT-X-PROGRAM-DATE-TIME":
                    guard pending.programDateTime == nil else { throw HLSError(.duplicateTag, "two EXT-X-PROGRAM-DATE-TIME tags for one segment", line: n) }
                    guard let value, !value.isEmpty else {
                        throw HLSError(.invalidValue, "EXT-X-PROGRAM-DATE-TIME requires a date-time", line: n)
                    }
                    pending.programDateTime = value
                default:
                    pending.otherTags.append(HLSTag(name: name, value: value))
                }
            }
        }
        if pending.hasSegmentTags {
            throw HLSError(.missingURI, "segment tags are not followed by a URI line", line: lastLine)
        }
        guard let targetDuration else {
            throw HLSError(.missingTag, "media playlist without EXT-X-TARGETDURATION", line: lastLine)
        }
        return HLSMediaPlaylist(version: version, targetDuration: targetDuration, mediaSequence: mediaSequence,
                                discontinuitySequence: discontinuitySequence, playlistType: playlistType,
                                iFramesOnly: iFramesOnly, independentSegments: independent, segments: segments,
                                trailingTags: pending.otherTags, endList: endList)
    }

    /// `<duration>,[<title>]`. The comma is required by RFC 8216 §4.3.2.1 but commonly omitted,
    /// so lenient reading accepts its absence; strict mode requires it before this runs.
    static func extinf(_ value: String?, line: Int) throws(HLSError) -> (duration: Double, title: String) {
        guard let value else { throw HLSError(.invalidValue, "EXTINF requires a duration", line: line) }
        let durationText: Substring
        let title: String
        if let comma = value.firstIndex(of: ",") {
            durationText = value[..<comma]
            title = String(value[value.index(after: comma)...])
        } else {
            durationText = value[...]
            title = ""
        }
        guard let d = HLSSyntax.decimalFloat(durationText) else {
            throw HLSError(.invalidValue, "EXTINF duration must be a decimal number without sign or exponent", line: line)
        }
        return (d.value, title)
    }
}
