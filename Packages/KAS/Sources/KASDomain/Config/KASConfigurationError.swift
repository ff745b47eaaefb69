/// A configuration that cannot be used. The reason names the source (file, environment
/// variable or flag) and the key at fault; it never repeats a secret's value.
public struct KASConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The configuration file (or a file it names) cannot be read.
        case unreadableFile
        /// The configuration file is not strict JSON (duplicate keys included) or not an object.
        case malformedJSON
        /// The file has a key this version does not know (typos are refused, not ignored).
        case unknownKey
        /// A value has the wrong type or is out of range.
        case invalidValue
        /// A required value is absent.
        case missingValue
        /// Values that cannot go together (a TLS certificate without its key).
        case conflict
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "configuration error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: KASConfigurationError, rhs: KASConfigurationError) -> Bool { lhs.code == rhs.code }
}
