/// Every failure of the Encoding module. Compared by `code`; `reason` is a fixed sentence naming
/// the problem and, where useful, the offset. It never repeats the input text, which may be a key
/// or a token.
public struct EncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A character outside the alphabet (including whitespace and the other Base64 alphabet).
        case invalidCharacter
        /// The length cannot come from any encoding (odd hex, Base64 with 4n+1 characters).
        case invalidLength
        /// Base64 padding is missing, misplaced or too long.
        case invalidPadding
        /// The text decodes but is not the one encoding of those bytes (non-zero pad bits).
        case nonCanonical
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "encoding error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: EncodingError, rhs: EncodingError) -> Bool { lhs.code == rhs.code }
}
