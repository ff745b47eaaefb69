/// Every failure of the packager. Compared by `code`; `reason` is a fixed sentence naming the
/// problem (track, sample, limit), never key material or media bytes.
public struct PackagerError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input is not a usable MP4/MOV: missing boxes, inconsistent sample tables.
        case malformedInput
        /// The input ends before the data its tables announce.
        case truncatedInput
        /// The input is valid but uses something the packager does not handle.
        case unsupportedInput
        /// A limit of the output profile would be exceeded (segments, archive size, senc entry).
        case limitExceeded
        /// The policy file is unusable for this profile.
        case invalidPolicy
        /// A command-line value or API argument is invalid.
        case invalidArgument
        /// Reading or writing a file failed.
        case io
        /// Key generation, wrapping or encryption failed.
        case cryptoFailure
        /// An external program (ffmpeg) was needed and failed or is missing.
        case externalTool
        /// The written package failed the reader admission checks, so it was not published.
        case notAdmitted
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: PackagerError, rhs: PackagerError) -> Bool { lhs.code == rhs.code }
}
