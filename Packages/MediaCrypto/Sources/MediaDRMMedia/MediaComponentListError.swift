/// Why `arkavo:components` was refused; `reason` names the entry and the rule broken.
public struct MediaComponentListError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The policy has no `arkavo:components` (a profile version 1 package).
        case missing
        /// Not the version 2 shape.
        case malformed
        /// A `keyBinding` is not canonical base64 of 32 bytes.
        case keyBindingForm
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
