/// A protected stream with its own content key (§3). Version 2 allows exactly one `video`
/// component and at most one `audio` component, each id equal to its kind.
public enum FPSv2ComponentKind: String, Sendable, Equatable, Hashable, CaseIterable {
    case video
    case audio

    /// The component id, which version 2 fixes to the kind.
    public var id: String { rawValue }

    /// The FairPlay SDK content type the key service issues this kind's key under (§10.7 #6).
    public var fairPlayContentType: String {
        switch self {
        case .video: "uhd"
        case .audio: "audio"
        }
    }

    /// The original format a protected sample entry of this kind wraps (§8.1 #4, §8.2 #4).
    var originalFormat: String {
        switch self {
        case .video: "avc1"
        case .audio: "mp4a"
        }
    }

    var protectedFormat: String {
        switch self {
        case .video: "encv"
        case .audio: "enca"
        }
    }

    var handlerType: String {
        switch self {
        case .video: "vide"
        case .audio: "soun"
        }
    }
}
