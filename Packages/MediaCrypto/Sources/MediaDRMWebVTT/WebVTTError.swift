/// Every failure of the WebVTT module. Compared by `code`; `reason` names the line and the rule
/// broken (never the cue text).
public struct WebVTTError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not UTF-8, or no `WEBVTT` signature.
        case notWebVTT
        /// A timestamp or timing line does not follow the syntax.
        case invalidTiming
        /// A cue's times are out of order: end not after start, or a start before the previous cue's.
        case outOfOrder
        /// A block that is neither a cue, a NOTE, a STYLE nor a REGION, or one in the wrong place.
        case invalidBlock
        /// A size, line length or cue count limit was exceeded.
        case limitExceeded
    }

    public let code: Code
    public let reason: String
    /// The 1-based line number, when the error is on a line.
    public let line: Int?

    public init(_ code: Code, _ reason: String, line: Int? = nil) {
        self.code = code
        self.reason = line.map { "line \($0): \(reason)" } ?? reason
        self.line = line
    }

    public var description: String { "WebVTT error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: WebVTTError, rhs: WebVTTError) -> Bool { lhs.code == rhs.code }
}
