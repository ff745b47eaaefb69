/// Every failure of the ZIP module. Compared by `code`; `reason` is a fixed sentence naming the
/// field, limit or offset at fault. It never carries entry contents.
public struct ZIPError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The archive ends before a record it announces.
        case truncated
        /// A record does not start with its signature, or no end-of-central-directory record exists.
        case badSignature
        /// A feature this reader does not implement: encryption, a compression method other than
        /// stored or deflate, multi-disk archives, ZIP64 where the limits forbid it.
        case unsupported
        /// The entry count is above `ZIPLimits.maxEntries` (or above 65,535 without ZIP64 in the writer).
        case tooManyEntries
        /// One entry is larger than `ZIPLimits.maxEntrySize`.
        case entryTooLarge
        /// The CRC-32 of the data differs from the recorded one (or the caller-declared one).
        case crcMismatch
        /// A name that is empty, absolute, holds `..`, `.`, an empty component, a backslash, a
        /// control character or invalid UTF-8.
        case unsafeName
        /// A local header disagrees with its central directory record.
        case headerMismatch
        /// Two entries share a name.
        case duplicateName
        /// The source or sink failed (see `underlying`).
        case io
        /// A size limit other than the entry count or entry size was exceeded.
        case limitExceeded
        /// The deflate stream is corrupt, ends early or is followed by stray bytes.
        case badCompression
        /// The produced data is not the declared size (a deflate bomb inflating past the declared
        /// size, a short stream, or a streamed entry whose written size differs from the declared one).
        case sizeMismatch
        /// An offset or size points outside the archive or its region, or entries overlap.
        case outOfBounds
        /// Fields of the archive contradict each other (entry count versus directory size,
        /// stored sizes that differ, a directory that does not end where the end record says).
        case inconsistent
        /// The archive needs ZIP64 but the caller did not allow it, or the layout forbids it.
        case zip64Required
        /// The archive is not in the exact layout (fps-v2 container rules).
        case notExactLayout
        /// The API was used out of order or with an argument it cannot accept.
        case invalidArgument
        /// No entry has the requested name.
        case notFound
    }

    public let code: Code
    public let reason: String
    /// The error thrown by a caller-supplied source or sink, when `code` is `.io`.
    public let underlying: (any Error)?

    public init(_ code: Code, _ reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    public var description: String { "zip error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: ZIPError, rhs: ZIPError) -> Bool { lhs.code == rhs.code }
}
