/// Every failure of the client's media path (init rewriting, fragment decryption, muxing,
/// output). Compared by `code`; `reason` is a fixed sentence naming the box, field, offset or
/// limit involved, never sample bytes or key material.
public struct MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The segment ends before a box it announces.
        case truncated
        /// The box tree is not well formed (the MP4 module refused it).
        case malformed
        /// A required box is missing or appears more often than allowed.
        case missingBox
        /// A valid feature the decryptor does not handle (`cenc` scheme, `seig` groups, 8-byte IVs).
        case unsupported
        /// A subsample map does not cover its sample exactly, or the `senc` count differs from
        /// the runs' sample count.
        case invalidSubsamples
        /// Sample data lies outside the fragment's `mdat`.
        case dataOutOfBounds
        /// No key was given for a protected track, or a key does not fit the track.
        case keyMismatch
        /// The cipher failed.
        case crypto
        /// Writing the output failed (a closed pipe, a full disk).
        case io
        /// A count or size exceeds a safety limit.
        case limitExceeded
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "media error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: MediaError, rhs: MediaError) -> Bool { lhs.code == rhs.code }
}
