/// Every failure of the HLS module. Compared by `code`; `reason` is a fixed sentence that names
/// the rule, tag or attribute that failed (never attribute values, which may carry key URIs), and
/// `line` is the 1-based playlist line the failure was found on (nil when it concerns the whole
/// input or a model handed to the writer).
public struct HLSError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input is larger than `HLSLimits.maxBytes`.
        case tooLarge
        /// More lines than `HLSLimits.maxLines`.
        case tooManyLines
        /// More segments than `HLSLimits.maxSegments`, or a segment number past fps-v2's 4,092.
        case tooManySegments
        /// An attribute list with more than `HLSLimits.maxAttributes` attributes.
        case tooManyAttributes
        /// Not UTF-8, a byte order mark where refused, or a control character.
        case invalidEncoding
        /// A lone CR anywhere, or any CR in strict mode.
        case invalidLineEnding
        /// A blank line (strict mode).
        case blankLine
        /// A comment line (strict mode).
        case commentLine
        /// The first line is not `#EXTM3U`.
        case missingHeader
        /// A tag this parser does not know (strict mode).
        case unknownTag
        /// A known tag the mode does not allow (for example a session key in an fps-v2 master).
        case unexpectedTag
        /// A tag that may appear once appears again.
        case duplicateTag
        /// A required tag is absent.
        case missingTag
        /// Tags or lines in an order the grammar forbids.
        case tagOrder
        /// An attribute list that does not follow the RFC 8216 §4.2 grammar.
        case malformedAttributeList
        /// A quoted-string without its closing quote.
        case unterminatedQuotedString
        /// The same attribute name twice in one list.
        case duplicateAttribute
        /// A required attribute is absent.
        case missingAttribute
        /// An attribute the tag (or strict mode) does not allow.
        case unexpectedAttribute
        /// A tag or attribute value of the wrong type or outside the allowed values.
        case invalidValue
        /// A hexadecimal-sequence (IV) that is not `0x` followed by the required hex digits.
        case invalidHex
        /// A URI line is not the one the grammar requires, or cannot be written.
        case invalidURI
        /// A tag that needs a following URI line has none.
        case missingURI
        /// A URI line where none is expected.
        case unexpectedURI
        /// Master-playlist and media-playlist tags in one playlist.
        case mixedPlaylist
        /// Values that are each valid but disagree with one another.
        case inconsistent
    }

    public let code: Code
    public let reason: String
    public let line: Int?

    public init(_ code: Code, _ reason: String, line: Int? = nil) {
        self.code = code
        self.reason = reason
        self.line = line
    }

    public var description: String {
        if let line { return "HLS error (\(code.rawValue)) at line \(line): \(reason)" }
        return "HLS error (\(code.rawValue)): \(reason)"
    }

    public static func == (lhs: HLSError, rhs: HLSError) -> Bool { lhs.code == rhs.code }
}
