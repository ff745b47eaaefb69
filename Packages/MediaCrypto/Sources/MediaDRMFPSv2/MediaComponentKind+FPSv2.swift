// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMedia

// What the fps-v2 profile fixes for each component kind.
extension MediaComponentKind {
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
