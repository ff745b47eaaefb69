import Foundation

/// Writes canonical playlist text: lines joined by LF with no trailing newline (the bytes of
/// fps-v2 Appendix A.3), tags and attributes in the fixed order each model type documents, IVs
/// in upper-case hex, EXTINF with at least five decimals and FRAME-RATE with at least three (more
/// only when a value needs them to read back exactly).
///
/// The writer validates the model first and throws rather than write text that would read back
/// differently or smuggle extra lines: quotes, CR or LF inside values, URIs that look like tags,
/// names the parser would interpret, negative or non-finite numbers. For a valid model,
/// `HLSParser.parse(write(model)) == model`; for an fps-v2 shaped model (`HLSFPSv2` in
/// MediaDRMFPSv2) the text also passes `.fpsV2Strict`.
public enum HLSWriter {
    public static func write(_ playlist: HLSPlaylist) throws(HLSError) -> String {
        switch playlist {
        case .master(let m): return try write(m)
        case .media(let m): return try write(m)
        }
    }

    public static func data(_ playlist: HLSPlaylist) throws(HLSError) -> Data {
        Data(try write(playlist).utf8)
    }

    public static func write(_ playlist: HLSMasterPlaylist) throws(HLSError) -> String {
        // Without a master-only tag the text would read back as a media playlist.
        guard !playlist.variants.isEmpty || !playlist.renditions.isEmpty || !playlist.iFrameVariants.isEmpty
                || !playlist.sessionKeys.isEmpty || playlist.otherTags.contains(where: { HLSTagNames.masterOnly.contains($0.name) }) else {
            throw HLSError(.missingTag, "a master playlist needs a variant, rendition, session key or other master-only tag")
        }
        var lines = ["#EXTM3U"]
        if let version = playlist.version {
            try nonNegative(version, "EXT-X-VERSION")
            lines.append("#EXT-X-VERSION:\(version)")
        }
        if playlist.independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        for key in playlist.sessionKeys {
            guard key.method != .none else { throw HLSError(.invalidValue, "EXT-X-SESSION-KEY must not use METHOD=NONE") }
            lines.append("#EXT-X-SESSION-KEY:" + (try keyAttributes(key)))
        }
        for tag in playlist.otherTags {
            lines.append(try otherTag(tag, modeled: HLSTagNames.masterModeled.union(HLSTagNames.mediaOnly)))
        }
        for rendition in playlist.renditions {
            if rendition.type == .closedCaptions, rendition.uri != nil || rendition.instreamID == nil {
                throw HLSError(.invalidValue, "a CLOSED-CAPTIONS rendition has INSTREAM-ID and no URI")
            }
            lines.append("#EXT-X-MEDIA:" + (try attributeText(rendition.attributeList)))
        }
        for variant in playlist.variants {
            try variantChecks(bandwidth: variant.bandwidth, average: variant.averageBandwidth, codecs: variant.codecs, resolution: variant.resolution)
            if let rate = variant.frameRate, !(rate.isFinite && rate >= 0) {
                throw HLSError(.invalidValue, "FRAME-RATE must be a finite non-negative number")
            }
            lines.append("#EXT-X-STREAM-INF:" + (try attributeText(variant.attributeList)))
            lines.append(try uriLine(variant.uri))
        }
        for variant in playlist.iFrameVariants {
            try variantChecks(bandwidth: variant.bandwidth, average: variant.averageBandwidth, codecs: variant.codecs, resolution: variant.resolution)
            lines.append("#EXT-X-I-FRAME-STREAM-INF:" + (try attributeText(variant.attributeList)))
        }
        return lines.joined(separator: "\n")
    }

    public static func write(_ playlist: HLSMediaPlaylist) throws(HLSError) -> String {
        var lines = ["#EXTM3U"]
        if let version = playlist.version {
            try nonNegative(version, "EXT-X-VERSION")
            lines.append("#EXT-X-VERSION:\(version)")
        }
        try nonNegative(playlist.targetDuration, "EXT-X-TARGETDURATION")
        lines.append("#EXT-X-TARGETDURATION:\(playlist.targetDuration)")
        if let sequence = playlist.mediaSequence {
            try nonNegative(sequence, "EXT-X-MEDIA-SEQUENCE")
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(sequence)")
        }
        if let sequence = playlist.discontinuitySequence {
            try nonNegative(sequence, "EXT-X-DISCONTINUITY-SEQUENCE")
            lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(sequence)")
        }
        if let type = playlist.playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:\(type.rawValue)") }
        if playlist.iFramesOnly { lines.append("#EXT-X-I-FRAMES-ONLY") }
        if playlist.independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        let modeled = HLSTagNames.mediaModeled.union(HLSTagNames.masterOnly)
        for segment in playlist.segments {
            for tag in segment.otherTags { lines.append(try otherTag(tag, modeled: modeled)) }
            for key in segment.keys { lines.append("#EXT-X-KEY:" + (try keyAttributes(key))) }
            if let map = segment.map {
                if let range = map.byteRange { try byteRange(range) }
                lines.append("#EXT-X-MAP:" + (try attributeText(map.attributeList)))
            }
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if let pdt = segment.programDateTime {
                guard !pdt.isEmpty, !HLSSyntax.containsControl(pdt, allowTab: true) else {
                    throw HLSError(.invalidValue, "EXT-X-PROGRAM-DATE-TIME must be a non-empty single-line value")
                }
                lines.append("#EXT-X-PROGRAM-DATE-TIME:\(pdt)")
            }
            if let range = segment.byteRange {
                try byteRange(range)
                lines.append("#EXT-X-BYTERANGE:\(range)")
            }
            guard segment.duration.isFinite, segment.duration >= 0 else {
                throw HLSError(.invalidValue, "EXTINF duration must be a finite non-negative number")
            }
            guard !HLSSyntax.containsControl(segment.title, allowTab: true) else {
                throw HLSError(.invalidValue, "EXTINF title contains a control character")
            }
            lines.append("#EXTINF:" + HLSSyntax.formatDecimal(segment.duration, minimumFractionDigits: 5) + "," + segment.title)
            lines.append(try uriLine(segment.uri))
        }
        for tag in playlist.trailingTags { lines.append(try otherTag(tag, modeled: modeled)) }
        if playlist.endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n")
    }

    // MARK: validation

    static func upperHex(_ bytes: some DataProtocol) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func keyAttributes(_ key: HLSKey) throws(HLSError) -> String {
        if key.method == .none {
            guard key.uri == nil, key.iv == nil, key.keyFormat == nil, key.keyFormatVersions == nil, key.otherAttributes.isEmpty else {
                throw HLSError(.unexpectedAttribute, "METHOD=NONE allows no other attribute")
            }
        } else if key.uri == nil {
            throw HLSError(.missingAttribute, "a key with a method other than NONE needs a URI")
        }
        if let iv = key.iv, iv.count != 16 {
            throw HLSError(.invalidHex, "IV must be 16 bytes")
        }
        return try attributeText(key.attributeList)
    }

    private static func variantChecks(bandwidth: Int, average: Int?, codecs: [String]?, resolution: HLSResolution?) throws(HLSError) {
        try nonNegative(bandwidth, "BANDWIDTH")
        if let average { try nonNegative(average, "AVERAGE-BANDWIDTH") }
        if let codecs {
            guard !codecs.isEmpty else { throw HLSError(.invalidValue, "CODECS must list at least one codec (use nil for none)") }
            for codec in codecs where codec.contains(",") {
                throw HLSError(.invalidValue, "a codec name contains a comma")
            }
        }
        if let resolution {
            try nonNegative(resolution.width, "RESOLUTION")
            try nonNegative(resolution.height, "RESOLUTION")
        }
    }

    private static func byteRange(_ range: HLSByteRange) throws(HLSError) {
        try nonNegative(range.length, "BYTERANGE")
        if let offset = range.offset { try nonNegative(offset, "BYTERANGE") }
    }

    private static func nonNegative(_ value: Int, _ name: String) throws(HLSError) {
        guard value >= 0 else { throw HLSError(.invalidValue, "\(name) must not be negative") }
    }

    private static func attributeText(_ attributes: [HLSAttribute]) throws(HLSError) -> String {
        var names = Set<String>()
        for attr in attributes {
            guard HLSSyntax.isAttributeName(attr.name) else {
                throw HLSError(.malformedAttributeList, "attribute name must be [A-Z0-9-]+")
            }
            guard names.insert(attr.name).inserted else {
                throw HLSError(.duplicateAttribute, "attribute \(attr.name) appears twice")
            }
            switch attr.value {
            case .quotedString(let s):
                guard HLSSyntax.isQuotedContent(s) else {
                    throw HLSError(.invalidValue, "quoted value of \(attr.name) contains a quote, line break or control character")
                }
            case .unquoted(let s):
                guard HLSSyntax.isUnquotedValue(s) else {
                    throw HLSError(.invalidValue, "unquoted value of \(attr.name) is empty or contains a quote, comma, whitespace or control character")
                }
            }
        }
        return HLSAttributeList(attributes).text
    }

    private static func uriLine(_ uri: String) throws(HLSError) -> String {
        guard !uri.isEmpty, !uri.hasPrefix("#"), !uri.allSatisfy({ $0 == " " || $0 == "\t" }),
              !HLSSyntax.containsControl(uri, allowTab: true) else {
            throw HLSError(.invalidURI, "URI is empty, starts with '#' or contains a line break or control character")
        }
        return uri
    }

    private static func otherTag(_ tag: HLSTag, modeled: Set<String>) throws(HLSError) -> String {
        guard tag.name.hasPrefix("EXT"), !tag.name.contains(":"), !HLSSyntax.containsControl(tag.name, allowTab: true) else {
            throw HLSError(.invalidValue, "tag name must start with EXT and contain no ':' or control character")
        }
        guard !modeled.contains(tag.name) else {
            throw HLSError(.invalidValue, "\(tag.name) is a modeled tag; set the model field instead")
        }
        if let value = tag.value, HLSSyntax.containsControl(value, allowTab: true) {
            throw HLSError(.invalidValue, "tag value contains a line break or control character")
        }
        return tag.line
    }
}
