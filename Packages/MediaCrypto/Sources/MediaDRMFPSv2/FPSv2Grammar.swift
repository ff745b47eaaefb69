import MediaDRMHLS
import MediaDRMMedia

/// The closed playlist grammar of the fps-v2 profile (draft-arkavo-tdf-fairplay-01 §7), checked
/// over lines that already passed the §7.1 line grammar (LF only, `#EXTM3U` first, no blank or
/// comment line). Each failure names the line and the rule.
///
/// Readings of the profile where its text leaves a choice, recorded here:
/// - Media playlists: EXT-X-KEY, EXT-X-MAP and EXT-X-MEDIA-SEQUENCE come before the first EXTINF
///   (the key by §7.3 #3, the sequence by RFC 8216 §4.3.3.2, the map because every segment needs
///   the init); the other header tags may sit anywhere before EXT-X-ENDLIST.
/// - "Each #EXTINF is followed by a URI" is read as: the next line is that URI.
/// - The component id comes from the key URI and must be `video` or `audio` (§3); the map and
///   segment URIs must use the same id. Matching the id against the playlist's file name and the
///   uuid and IV against the manifest is the caller's part of admission.
/// - CODECS lists its two codecs in either order.
struct FPSv2Grammar: HLSClosedGrammar {
    func checkMaster(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError) {
        try Self.checkMaster(lines, lastLine: lastLine, limits: limits)
    }

    func checkMedia(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError) {
        try Self.checkMedia(lines, lastLine: lastLine, limits: limits)
    }

    // MARK: master.m3u8 (§7.2)

    static func checkMaster(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError) {
        var seen = Set<String>()
        var renditionLine: Int?
        var variant: (line: Int, hasAudio: Bool, hasMP4A: Bool)?
        var i = 0
        while i < lines.count {
            let line = lines[i]
            let n = line.number
            i += 1
            guard case .tag(let name, let value) = line.kind else {
                throw HLSError(.unexpectedURI, "a URI line must immediately follow EXT-X-STREAM-INF (§7.2 #4)", line: n)
            }
            switch name {
            case "EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-MEDIA", "EXT-X-STREAM-INF":
                guard seen.insert(name).inserted else {
                    throw HLSError(.duplicateTag, "\(name) appears twice (§7.2 #5)", line: n)
                }
            default:
                break
            }
            switch name {
            case "EXT-X-VERSION":
                guard value == "7" else { throw HLSError(.invalidValue, "EXT-X-VERSION must be 7 (§7.2 #1)", line: n) }
            case "EXT-X-INDEPENDENT-SEGMENTS":
                guard value == nil else { throw HLSError(.invalidValue, "EXT-X-INDEPENDENT-SEGMENTS takes no value (§7.2 #2)", line: n) }
            case "EXT-X-MEDIA":
                try checkRendition(try HLSParser.attributes(value, line: n, limits: limits))
                renditionLine = n
            case "EXT-X-STREAM-INF":
                let v = try checkVariant(try HLSParser.attributes(value, line: n, limits: limits))
                guard i < lines.count else {
                    throw HLSError(.missingURI, "EXT-X-STREAM-INF must be followed by video.m3u8 (§7.2 #4)", line: n)
                }
                guard case .uri(let uri) = lines[i].kind else {
                    throw HLSError(.tagOrder, "video.m3u8 must immediately follow EXT-X-STREAM-INF (§7.2 #6)", line: lines[i].number)
                }
                guard uri == "video.m3u8" else {
                    throw HLSError(.invalidURI, "the variant URI must be video.m3u8 (§7.2 #4)", line: lines[i].number)
                }
                i += 1
                variant = (n, v.hasAudio, v.hasMP4A)
            default:
                if HLSTagNames.known.contains(name) {
                    throw HLSError(.unexpectedTag, "\(name) is not allowed in an fps-v2 master playlist (§7.2 #5)", line: n)
                }
                throw HLSError(.unknownTag, "unknown tag in an fps-v2 master playlist (§7.1 #3)", line: n)
            }
        }
        for required in ["EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-STREAM-INF"] where !seen.contains(required) {
            throw HLSError(.missingTag, "\(required) is required (§7.2)", line: lastLine)
        }
        guard let variant else { throw HLSError(.missingTag, "EXT-X-STREAM-INF is required (§7.2 #4)", line: lastLine) }
        let hasRendition = renditionLine != nil
        guard variant.hasAudio == hasRendition else {
            throw HLSError(.inconsistent, "AUDIO=\"audio\" must be present exactly when the audio rendition is (§7.2 #4)", line: variant.line)
        }
        guard variant.hasMP4A == hasRendition else {
            throw HLSError(.inconsistent, "CODECS must list mp4a.40.2 exactly when the audio rendition is present (§7.2 #4)", line: variant.line)
        }
    }

    static func checkRendition(_ list: HLSAttributeList) throws(HLSError) {
        try exactNames(list, required: ["TYPE", "GROUP-ID", "NAME", "LANGUAGE", "DEFAULT", "AUTOSELECT", "CHANNELS", "URI"], optional: [], rule: "§7.2 #3")
        try expect(list, "TYPE", .unquoted("AUDIO"), rule: "§7.2 #3")
        try expect(list, "GROUP-ID", .quotedString("audio"), rule: "§7.2 #3")
        try expect(list, "NAME", .quotedString("Audio"), rule: "§7.2 #3")
        try expect(list, "DEFAULT", .unquoted("YES"), rule: "§7.2 #3")
        try expect(list, "AUTOSELECT", .unquoted("YES"), rule: "§7.2 #3")
        guard list["URI"] == .quotedString("audio.m3u8") else {
            throw HLSError(.invalidURI, "the rendition URI must be \"audio.m3u8\" (§7.2 #3)", line: list.line)
        }
        guard case .quotedString(let language)? = list["LANGUAGE"], isLanguageTag(language) else {
            throw HLSError(.invalidValue, "LANGUAGE must be a quoted BCP 47 tag (§7.2 #3)", line: list.line)
        }
        guard case .quotedString(let channels)? = list["CHANNELS"], ["1", "2", "3", "4", "5", "6", "8"].contains(channels) else {
            throw HLSError(.invalidValue, "CHANNELS must be \"1\" to \"6\" or \"8\" (§7.2 #3)", line: list.line)
        }
    }

    static func checkVariant(_ list: HLSAttributeList) throws(HLSError) -> (hasAudio: Bool, hasMP4A: Bool) {
        try exactNames(list, required: ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"], optional: ["AUDIO"], rule: "§7.2 #4")
        guard case .unquoted(let bw)? = list["BANDWIDTH"], let bandwidth = HLSSyntax.positiveIntegerNoLeadingZero(bw) else {
            throw HLSError(.invalidValue, "BANDWIDTH must be a positive integer without a leading zero (§7.2 #4)", line: list.line)
        }
        guard case .unquoted(let abw)? = list["AVERAGE-BANDWIDTH"], let average = HLSSyntax.positiveIntegerNoLeadingZero(abw) else {
            throw HLSError(.invalidValue, "AVERAGE-BANDWIDTH must be a positive integer without a leading zero (§7.2 #4)", line: list.line)
        }
        guard average <= bandwidth else {
            throw HLSError(.inconsistent, "AVERAGE-BANDWIDTH exceeds BANDWIDTH (§7.2 #4)", line: list.line)
        }
        guard case .quotedString(let codecText)? = list["CODECS"] else {
            throw HLSError(.invalidValue, "CODECS must be a quoted-string (§7.2 #4)", line: list.line)
        }
        let codecs = codecText.split(separator: ",", omittingEmptySubsequences: false)
        let avc = codecs.filter { isAVC1($0) }.count
        let mp4a = codecs.filter { $0 == "mp4a.40.2" }.count
        guard avc == 1, mp4a <= 1, avc + mp4a == codecs.count else {
            throw HLSError(.invalidValue, "CODECS must be one avc1.<6 hex> and, with audio, mp4a.40.2 (§7.2 #4)", line: list.line)
        }
        guard case .unquoted(let res)? = list["RESOLUTION"], isPositiveResolution(res) else {
            throw HLSError(.invalidValue, "RESOLUTION must be <w>x<h> with positive integers (§7.2 #4)", line: list.line)
        }
        guard case .unquoted(let fr)? = list["FRAME-RATE"], let rate = HLSSyntax.decimalFloat(fr), rate.value > 0, rate.fractionDigits <= 3 else {
            throw HLSError(.invalidValue, "FRAME-RATE must be a positive decimal with at most three decimals (§7.2 #4)", line: list.line)
        }
        if list["AUDIO"] != nil {
            try expect(list, "AUDIO", .quotedString("audio"), rule: "§7.2 #4")
        }
        return (list["AUDIO"] != nil, mp4a == 1)
    }

    // MARK: <id>.m3u8 (§7.3)

    static func checkMedia(_ lines: [HLSLine], lastLine: Int, limits: HLSLimits) throws(HLSError) {
        var seen = Set<String>()
        var component: String?
        var map: (line: Int, uri: String)?
        var targetDuration: Int?
        var durations: [(line: Int, value: Double)] = []
        var inSegments = false
        var ended = false
        let segmentLimit = min(FPSv2Profile.maxSegmentsPerComponent, limits.maxSegments)
        var i = 0
        while i < lines.count {
            let line = lines[i]
            let n = line.number
            i += 1
            guard !ended else {
                throw HLSError(.tagOrder, "EXT-X-ENDLIST must be the last line (§7.3 #1)", line: n)
            }
            guard case .tag(let name, let value) = line.kind else {
                throw HLSError(.unexpectedURI, "a segment URI must immediately follow its EXTINF (§7.3 #5)", line: n)
            }
            switch name {
            case "EXT-X-VERSION", "EXT-X-PLAYLIST-TYPE", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE",
                 "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-KEY", "EXT-X-MAP":
                guard seen.insert(name).inserted else {
                    throw HLSError(.duplicateTag, "\(name) appears twice (§7.3)", line: n)
                }
            default:
                break
            }
            switch name {
            case "EXT-X-VERSION":
                guard value == "7" else { throw HLSError(.invalidValue, "EXT-X-VERSION must be 7 (§7.3 #1)", line: n) }
            case "EXT-X-PLAYLIST-TYPE":
                guard value == "VOD" else { throw HLSError(.invalidValue, "EXT-X-PLAYLIST-TYPE must be VOD (§7.3 #1)", line: n) }
            case "EXT-X-TARGETDURATION":
                guard let value, let t = HLSSyntax.decimalInteger(value), t > 0 else {
                    throw HLSError(.invalidValue, "EXT-X-TARGETDURATION must be a positive integer (§7.3 #1)", line: n)
                }
                targetDuration = t
            case "EXT-X-MEDIA-SEQUENCE":
                guard value == "0" else { throw HLSError(.invalidValue, "EXT-X-MEDIA-SEQUENCE must be 0 (§7.3 #2)", line: n) }
                guard !inSegments else { throw HLSError(.tagOrder, "EXT-X-MEDIA-SEQUENCE must precede the first EXTINF", line: n) }
            case "EXT-X-INDEPENDENT-SEGMENTS":
                guard value == nil else { throw HLSError(.invalidValue, "EXT-X-INDEPENDENT-SEGMENTS takes no value (§7.3 #2)", line: n) }
            case "EXT-X-KEY":
                guard !inSegments else { throw HLSError(.tagOrder, "EXT-X-KEY must precede the first EXTINF (§7.3 #3)", line: n) }
                let id = try checkKey(try HLSParser.attributes(value, line: n, limits: limits))
                component = id
                if let map { try checkMapURI(map.uri, component: id, line: map.line) }
            case "EXT-X-MAP":
                guard !inSegments else { throw HLSError(.tagOrder, "EXT-X-MAP must precede the first EXTINF", line: n) }
                let list = try HLSParser.attributes(value, line: n, limits: limits)
                try exactNames(list, required: ["URI"], optional: [], rule: "§7.3 #1")
                guard case .quotedString(let uri)? = list["URI"] else {
                    throw HLSError(.invalidValue, "EXT-X-MAP URI must be a quoted-string (§7.3 #1)", line: n)
                }
                map = (n, uri)
                if let component { try checkMapURI(uri, component: component, line: n) }
            case "EXTINF":
                guard let component else { throw HLSError(.tagOrder, "EXT-X-KEY must precede the first EXTINF (§7.3 #3)", line: n) }
                guard map != nil else { throw HLSError(.tagOrder, "EXT-X-MAP must precede the first EXTINF", line: n) }
                inSegments = true
                guard durations.count < segmentLimit else {
                    throw HLSError(.tooManySegments, "more than \(segmentLimit) segments (§4 #4)", line: n)
                }
                durations.append((n, try checkEXTINF(value, line: n)))
                guard i < lines.count else {
                    throw HLSError(.missingURI, "EXTINF must be followed by its segment URI (§7.3 #5)", line: n)
                }
                guard case .uri(let uri) = lines[i].kind else {
                    throw HLSError(.tagOrder, "the segment URI must immediately follow EXTINF (§7.3 #5)", line: lines[i].number)
                }
                guard uri == "\(component)-segment\(durations.count - 1).m4s" else {
                    throw HLSError(.invalidURI, "segment URIs must be <id>-segment<N>.m4s in order from 0 (§7.3 #5)", line: lines[i].number)
                }
                i += 1
            case "EXT-X-ENDLIST":
                guard value == nil else { throw HLSError(.invalidValue, "EXT-X-ENDLIST takes no value", line: n) }
                guard !durations.isEmpty else { throw HLSError(.missingTag, "a media playlist needs at least one segment (§4 #4)", line: n) }
                ended = true
            default:
                if HLSTagNames.known.contains(name) {
                    throw HLSError(.unexpectedTag, "\(name) is not allowed in an fps-v2 media playlist (§7.3 #2, #6)", line: n)
                }
                throw HLSError(.unknownTag, "unknown tag in an fps-v2 media playlist (§7.1 #3)", line: n)
            }
        }
        for required in ["EXT-X-VERSION", "EXT-X-PLAYLIST-TYPE", "EXT-X-TARGETDURATION", "EXT-X-KEY", "EXT-X-MAP"] where !seen.contains(required) {
            throw HLSError(.missingTag, "\(required) is required (§7.3 #1, #3)", line: lastLine)
        }
        guard ended else { throw HLSError(.missingTag, "EXT-X-ENDLIST is required as the last line (§7.3 #1)", line: lastLine) }
        guard let targetDuration else { throw HLSError(.missingTag, "EXT-X-TARGETDURATION is required (§7.3 #1)", line: lastLine) }
        for d in durations where d.value.rounded() > Double(targetDuration) {
            throw HLSError(.invalidValue, "EXTINF rounded to an integer exceeds EXT-X-TARGETDURATION (§7.3 #4)", line: d.line)
        }
    }

    /// Returns the component id named by the key URI.
    static func checkKey(_ list: HLSAttributeList) throws(HLSError) -> String {
        try exactNames(list, required: ["METHOD", "URI", "KEYFORMAT", "KEYFORMATVERSIONS"], optional: ["IV"], rule: "§7.3 #3")
        try expect(list, "METHOD", .unquoted("SAMPLE-AES"), rule: "§7.3 #3")
        try expect(list, "KEYFORMAT", .quotedString(FPSv2Profile.keyFormat), rule: "§7.3 #3")
        try expect(list, "KEYFORMATVERSIONS", .quotedString("1"), rule: "§7.3 #3")
        guard case .quotedString(let uri)? = list["URI"], let id = componentOfKeyURI(uri) else {
            throw HLSError(.invalidURI, "key URI must be skd://<lowercase policy uuid>/<video|audio> (§7.3 #3)", line: list.line)
        }
        switch list["IV"] {
        case nil:
            break
        case .quotedString?:
            throw HLSError(.invalidHex, "IV must be an unquoted 0x followed by 32 hexadecimal digits (§7.3 #3)", line: list.line)
        case .unquoted(let iv)?:
            guard iv.utf8.count == 34, let bytes = HLSSyntax.hexadecimalSequence(iv), bytes.count == 16 else {
                throw HLSError(.invalidHex, "IV must be 0x followed by 32 hexadecimal digits (§7.3 #3)", line: list.line)
            }
        }
        return id
    }

    static func checkMapURI(_ uri: String, component: String, line: Int) throws(HLSError) {
        guard uri == "\(component)-init.mp4" else {
            throw HLSError(.invalidURI, "EXT-X-MAP URI must be \"<id>-init.mp4\" for the key's component (§7.3 #1)", line: line)
        }
    }

    static func checkEXTINF(_ value: String?, line: Int) throws(HLSError) -> Double {
        guard let value, let comma = value.firstIndex(of: ",") else {
            throw HLSError(.invalidValue, "EXTINF must be <duration>,[title] (§7.3 #4)", line: line)
        }
        guard let d = HLSSyntax.decimalFloat(value[..<comma]), d.value > 0 else {
            throw HLSError(.invalidValue, "EXTINF duration must be a positive decimal without sign or exponent (§7.3 #4)", line: line)
        }
        return d.value
    }

    // MARK: helpers

    static func exactNames(_ list: HLSAttributeList, required: [String], optional: Set<String>, rule: String) throws(HLSError) {
        for name in required where list[name] == nil {
            throw HLSError(.missingAttribute, "\(name) is required (\(rule))", line: list.line)
        }
        let allowed = Set(required).union(optional)
        for attr in list.attributes where !allowed.contains(attr.name) {
            throw HLSError(.unexpectedAttribute, "\(attr.name) is not allowed (\(rule))", line: list.line)
        }
    }

    static func expect(_ list: HLSAttributeList, _ name: String, _ value: HLSAttributeValue, rule: String) throws(HLSError) {
        guard list[name] == value else {
            let shown: String
            switch value {
            case .quotedString(let s): shown = "\"\(s)\""
            case .unquoted(let s): shown = s
            }
            throw HLSError(.invalidValue, "\(name) must be \(shown) (\(rule))", line: list.line)
        }
    }

    /// `skd://` + canonical lowercase 8-4-4-4-12 uuid + `/` + a version 2 component id.
    static func componentOfKeyURI(_ uri: String) -> String? {
        SKDKeyURI(uri)?.component.id
    }

    static func isAVC1(_ codec: some StringProtocol) -> Bool {
        let bytes = Array(codec.utf8)
        guard bytes.count == 11, codec.hasPrefix("avc1.") else { return false }
        return bytes[5...].allSatisfy(HLSSyntax.isHexDigit)
    }

    /// A primary subtag of 2 or 3 letters, then `-` and subtags of 1 to 8 letters or digits.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...3).contains(primary.utf8.count),
              primary.utf8.allSatisfy({ isASCIILetter($0) }) else { return false }
        for sub in parts.dropFirst() {
            guard (1...8).contains(sub.utf8.count), sub.utf8.allSatisfy({ isASCIILetter($0) || HLSSyntax.isDigit($0) }) else { return false }
        }
        return true
    }

    static func isASCIILetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    static func isPositiveResolution(_ text: String) -> Bool {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return HLSSyntax.positiveIntegerNoLeadingZero(parts[0]) != nil && HLSSyntax.positiveIntegerNoLeadingZero(parts[1]) != nil
    }
}
