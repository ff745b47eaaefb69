/// Every failure of the offline library, a download, a licence or an offline play. Compared by
/// `code`. `reason` is a fixed sentence naming the problem and what to do; it never holds a
/// token, a licence, a key, a wrapped key or a licence id.
public struct OfflineError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// The library directory, its device key or a title record is unusable.
        case library
        /// No title of that name in the library.
        case unknownTitle
        /// A title of that name already exists (delete it first).
        case titleExists
        /// The source cannot be downloaded for offline play (not http(s), tdf-hls, not fps-v2).
        case unsupportedSource
        /// The download failed (transport, the origin's answers); a rerun resumes it.
        case download
        /// The package stored in the library is not the one downloaded (changed or damaged).
        case packageChanged
        /// The licence's signature does not verify with the licence-signing keys pinned for its
        /// key service (none pinned, changed, or signed by another key), or it is not a
        /// well-formed offline licence.
        case licenseSignature
        /// The licence is bound to another device key (another library).
        case licenseDevice
        /// The licence is for another asset than the stored package.
        case licenseAsset
        /// The licence is past its `exp`.
        case licenseExpired
        /// The playback window, counted from the first offline play, is over.
        case playbackWindowOver
        /// The clock reads earlier than a time this library has already seen (or than the
        /// licence's issue): it was set back.
        case clockSetBack
        /// The title's licence was given back (`player license release`).
        case licenseReleased
        /// A sealed library record (the clock's high-water mark, the pinned licence-signing
        /// keys, the title's first offline play) is missing or does not open under its own name
        /// with this library's device key: edited, swapped for another, or from another library.
        /// Offline play is refused until an online renewal re-creates it.
        case sealedRecord
        /// The title was stored by an earlier player, whose records were plain: renew it online
        /// once to seal them.
        case libraryUpgrade
        /// The key service refused or failed; `playback` carries the mapped error.
        case keyService
        /// Decrypting or writing the clear media failed; `playback` carries the error.
        case playback
    }

    public let code: Code
    public let reason: String
    /// The failure behind a `.keyService` or `.playback` error (its status and refusal code).
    public let playback: PlaybackError?

    public init(_ code: Code, _ reason: String, playback: PlaybackError? = nil) {
        self.code = code
        self.reason = reason
        self.playback = playback
    }

    static func keyService(_ error: PlaybackError) -> OfflineError {
        OfflineError(.keyService, error.reason, playback: error)
    }

    public var description: String { "offline error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: OfflineError, rhs: OfflineError) -> Bool { lhs.code == rhs.code }
}
