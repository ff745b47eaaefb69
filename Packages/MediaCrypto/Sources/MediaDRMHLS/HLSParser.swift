import Foundation

/// Reads master and media playlists.
///
/// - `.lenient`: general HLS (RFC 8216). LF or CRLF, a leading BOM skipped, blank lines and
///   comments skipped, tags the model does not interpret kept in order (`otherTags`,
///   `trailingTags`), unknown attributes kept (`otherAttributes`). Attribute lists, numbers, IVs
///   and the master/media structure are still checked.
/// - `.fpsV2Strict`: the closed grammar of the fps-v2 profile §7, checked line by line before the
///   model is built; every failure names its line and rule. Defaults to `HLSLimits.fpsV2`.
public enum HLSParser {
    public enum Mode: Sendable, Equatable {
        case lenient
        case fpsV2Strict
    }

    public static func parse(_ bytes: some DataProtocol, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSPlaylist {
        let limits = limits ?? (mode == .fpsV2Strict ? .fpsV2 : .default)
        // Bound the copy by the limit before materializing the bytes.
        guard bytes.count <= limits.maxBytes else {
            throw HLSError(.tooLarge, "playlist exceeds \(limits.maxBytes) bytes")
        }
        return try parse(bytes: Array(bytes), mode: mode, limits: limits)
    }

    public static func parse(_ text: String, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSPlaylist {
        let limits = limits ?? (mode == .fpsV2Strict ? .fpsV2 : .default)
        guard text.utf8.count <= limits.maxBytes else {
            throw HLSError(.tooLarge, "playlist exceeds \(limits.maxBytes) bytes")
        }
        return try parse(bytes: Array(text.utf8), mode: mode, limits: limits)
    }

    public static func parseMaster(_ bytes: some DataProtocol, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSMasterPlaylist {
        guard case .master(let m) = try parse(bytes, mode: mode, limits: limits) else {
            throw HLSError(.unexpectedTag, "a media playlist where a master playlist is required")
        }
        return m
    }

    public static func parseMedia(_ bytes: some DataProtocol, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSMediaPlaylist {
        guard case .media(let m) = try parse(bytes, mode: mode, limits: limits) else {
            throw HLSError(.unexpectedTag, "a master playlist where a media playlist is required")
        }
        return m
    }

    static func parse(bytes: [UInt8], mode: Mode, limits: HLSLimits) throws(HLSError) -> HLSPlaylist {
        let strict = mode == .fpsV2Strict
        let (lines, lastLine) = try HLSLineReader.read(bytes, strict: strict, limits: limits)
        let isMaster = try classify(lines, strict: strict)
        if strict {
            if isMaster {
                try FPSv2Grammar.checkMaster(lines, lastLine: lastLine, limits: limits)
            } else {
                try FPSv2Grammar.checkMedia(lines, lastLine: lastLine, limits: limits)
            }
        }
        if isMaster {
            return .master(try HLSMasterBuilder.build(lines, limits: limits))
        }
        return .media(try HLSMediaBuilder.build(lines, lastLine: lastLine, limits: limits))
    }

    /// Master when a master-only tag appears. Lenient mode refuses a mix; strict mode treats a
    /// playlist with any media tag as media so the fps-v2 media grammar names the stray master
    /// tag (§7.3 #6), and a playlist with neither as master.
    static func classify(_ lines: [HLSLine], strict: Bool) throws(HLSError) -> Bool {
        var firstMaster: Int?
        var firstMedia: Int?
        for line in lines {
            guard case .tag(let name, _) = line.kind else { continue }
            if firstMaster == nil, HLSTagNames.masterOnly.contains(name) { firstMaster = line.number }
            if firstMedia == nil, HLSTagNames.mediaOnly.contains(name) { firstMedia = line.number }
        }
        if strict { return firstMedia == nil }
        if let m = firstMaster, let d = firstMedia {
            throw HLSError(.mixedPlaylist, "master-playlist and media-playlist tags in one playlist", line: max(m, d))
        }
        return firstMaster != nil
    }

    static func attributes(_ value: String?, line: Int, limits: HLSLimits) throws(HLSError) -> HLSAttributeList {
        guard let value else { throw HLSError(.malformedAttributeList, "tag requires an attribute list", line: line) }
        return try HLSAttributeList(parsing: value, maxAttributes: limits.maxAttributes, line: line)
    }

    static func integerValue(_ value: String?, tag: String, line: Int) throws(HLSError) -> Int {
        guard let value, let v = HLSSyntax.decimalInteger(value) else {
            throw HLSError(.invalidValue, "\(tag) requires a decimal-integer", line: line)
        }
        return v
    }

    static func noValue(_ value: String?, tag: String, line: Int) throws(HLSError) {
        guard value == nil else { throw HLSError(.invalidValue, "\(tag) takes no value", line: line) }
    }
}
