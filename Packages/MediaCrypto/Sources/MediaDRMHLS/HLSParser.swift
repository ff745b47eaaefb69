// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// Reads master and media playlists.
///
/// - `.lenient`: general HLS (RFC 8216). LF or CRLF, a leading BOM skipped, blank lines and
///   comments skipped, tags the model does not interpret kept in order (`otherTags`,
///   `trailingTags`), unknown attributes kept (`otherAttributes`). Attribute lists, numbers, IVs
///   and the master/media structure are still checked.
/// - a strict mode: a profile's closed grammar (`HLSClosedGrammar`) over the strict line grammar
///   (LF only, `#EXTM3U` first, no blank or comment line), checked line by line before the model is
///   built; every failure names its line and rule. The fps-v2 profile's is `.fpsV2Strict`
///   (MediaDRMFPSv2).
public enum HLSParser {
    /// How a playlist is read: leniently, or under a profile's closed grammar with that profile's
    /// default limits. Modes are equal when they name the same grammar.
    public struct Mode: Sendable, Equatable {
        /// General HLS (RFC 8216).
        public static let lenient = Mode(name: "lenient", grammar: nil, defaultLimits: .default)

        let name: String
        let grammar: (any HLSClosedGrammar)?
        let defaultLimits: HLSLimits

        private init(name: String, grammar: (any HLSClosedGrammar)?, defaultLimits: HLSLimits) {
            self.name = name
            self.grammar = grammar
            self.defaultLimits = defaultLimits
        }

        /// A profile's strict mode, made by the module that owns the profile.
        package init(strict name: String, grammar: any HLSClosedGrammar, defaultLimits: HLSLimits) {
            self.init(name: name, grammar: grammar, defaultLimits: defaultLimits)
        }

        var isStrict: Bool { grammar != nil }

        public static func == (lhs: Mode, rhs: Mode) -> Bool { lhs.name == rhs.name }
    }

    public static func parse(_ bytes: some DataProtocol, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSPlaylist {
        let limits = limits ?? mode.defaultLimits
        // Bound the copy by the limit before materializing the bytes.
        guard bytes.count <= limits.maxBytes else {
            throw HLSError(.tooLarge, "playlist exceeds \(limits.maxBytes) bytes")
        }
        return try parse(bytes: Array(bytes), mode: mode, limits: limits)
    }

    public static func parse(_ text: String, mode: Mode = .lenient, limits: HLSLimits? = nil) throws(HLSError) -> HLSPlaylist {
        let limits = limits ?? mode.defaultLimits
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
        let (lines, lastLine) = try HLSLineReader.read(bytes, strict: mode.isStrict, limits: limits)
        let isMaster = try classify(lines, strict: mode.isStrict)
        if let grammar = mode.grammar {
            if isMaster {
                try grammar.checkMaster(lines, lastLine: lastLine, limits: limits)
            } else {
                try grammar.checkMedia(lines, lastLine: lastLine, limits: limits)
            }
        }
        if isMaster {
            return .master(try HLSMasterBuilder.build(lines, limits: limits))
        }
        return .media(try HLSMediaBuilder.build(lines, lastLine: lastLine, limits: limits))
    }

    /// Master when a master-only tag appears. Lenient mode refuses a mix; strict mode treats a
    /// playlist with any media tag as media so the profile's media grammar names the stray master
    /// tag (fps-v2 §7.3 #6), and a playlist with neither as master.
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

    package static func attributes(_ value: String?, line: Int, limits: HLSLimits) throws(HLSError) -> HLSAttributeList {
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
