/// Every failure of `GzipDecoder`. Compared by `code`; `reason` is a fixed sentence that never
/// carries the body's bytes.
public struct GzipError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not gzip (RFC 1952): a bad magic, header, CRC-32 or size trailer, a zlib or raw stream,
        /// bytes after the last member, or an empty input.
        case malformed
        /// The input ends inside a member.
        case truncated
        /// The inflated data would pass the caller's bound.
        case tooLarge
        /// zlib could not start or restart a stream (out of memory).
        case unavailable
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "gzip error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: GzipError, rhs: GzipError) -> Bool { lhs.code == rhs.code }
}
