/// Every failure of the CENC module. Compared by `code`; `reason` is a fixed sentence naming the
/// syntax element, the limit or the offset involved (never sample bytes or key material).
public struct CENCError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The data ends before a field it must hold.
        case truncated
        /// A NAL unit length prefix or NAL unit header is impossible.
        case invalidNALUnit
        /// A syntax element holds a value its specification forbids, or is beyond a safety limit.
        case invalidValue
        /// A slice or picture parameter set names a parameter set that was never given.
        case missingParameterSet
        /// A valid feature this module does not handle (FMO, data partitioning, MVC/SVC slices,
        /// NAL unit length size 3, 8-byte IVs).
        case unsupported
        /// A subsample map does not describe the sample, or a size does not fit its field.
        case invalidSubsamples
        /// The key, IV, pattern or the cipher itself failed.
        case crypto
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "cenc error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: CENCError, rhs: CENCError) -> Bool { lhs.code == rhs.code }
}
