/// Every failure of the TDF module. Compared by `code`; `reason` is a fixed, secret-free sentence
/// (it may name a field, a limit or a segment index, never a key, a wrapped key or plaintext).
public struct TDFError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The manifest is not valid JSON, or a required field is missing or has the wrong type.
        case malformedManifest
        /// The decoded policy is not valid base64 JSON of the expected shape.
        case malformedPolicy
        /// A well-formed value this implementation does not handle (algorithm, key access type).
        case unsupported
        /// A policy binding does not verify under the unwrapped key.
        case bindingMismatch
        /// A segment hash, the root signature, a GCM tag or a payload size does not verify.
        case integrityFailure
        /// No key access object could be unwrapped with the given key.
        case keyUnwrapFailure
        /// A size or count is above the configured limit.
        case limitExceeded
        /// Reading or writing a file failed.
        case io
        /// The ZIP container is malformed or lacks a required entry.
        case malformedArchive
        /// A caller-supplied argument is out of range (segment size, component id, policy).
        case invalidArgument
        /// A cryptographic primitive failed on valid input (random generator, backend).
        case cryptoFailure
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "TDF error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: TDFError, rhs: TDFError) -> Bool { lhs.code == rhs.code }
}
