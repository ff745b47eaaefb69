/// Every failure of the JSON module. Compared by `code`; `reason` names the problem and `offset`
/// is the byte offset in the input where it was found (nil for accessor errors). Reasons name
/// fields and limits but never repeat string contents, which may be tokens or keys.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input ended before the document was complete.
        case truncated
        /// A byte that cannot start or continue the value at this point.
        case unexpectedCharacter
        /// A number outside the RFC 8259 grammar (leading zero, '+', '.5', '1.', NaN...).
        case invalidNumber
        /// A string holding a raw control character.
        case invalidString
        /// A bad backslash escape, including lone UTF-16 surrogates.
        case invalidEscape
        /// Bytes that are not well-formed UTF-8 (overlongs, encoded surrogates, out of range).
        case invalidUTF8
        /// An object with the same key twice (compared after unescaping).
        case duplicateKey
        /// Containers nested deeper than `JSONLimits.maxDepth`.
        case tooDeep
        /// A size limit of `JSONLimits` was exceeded.
        case tooLarge
        /// Non-whitespace bytes after the document.
        case trailingData
        /// A typed accessor found a value of another type.
        case typeMismatch
        /// A typed accessor did not find a required member.
        case missingField
        /// A closed-schema check found a member it does not allow.
        case unknownField
    }

    public let code: Code
    public let reason: String
    public let offset: Int?

    public init(_ code: Code, _ reason: String, offset: Int? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset {
            return "JSON error (\(code.rawValue)) at byte \(offset): \(reason)"
        }
        return "JSON error (\(code.rawValue)): \(reason)"
    }

    public static func == (lhs: JSONError, rhs: JSONError) -> Bool { lhs.code == rhs.code }
}
