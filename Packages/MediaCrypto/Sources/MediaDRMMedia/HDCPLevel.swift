/// Output protection, ordered: none < HDCP Type 0 < HDCP Type 1. (`unprotected` is spelled
/// `"none"` on the wire; a Swift case named `none` would read as `Optional.none`.)
public enum HDCPLevel: String, Sendable, Equatable, CaseIterable, Comparable {
    case unprotected = "none", type0, type1

    var rank: Int {
        switch self {
        case .unprotected: 0
        case .type0: 1
        case .type1: 2
        }
    }

    /// The FairPlay SDK's `hdcp-type` (docs/fairplay.md): -1 (not required), 0 or 1.
    public var fairPlayHDCPType: Int {
        switch self {
        case .unprotected: -1
        case .type0: 0
        case .type1: 1
        }
    }

    public static func < (lhs: HDCPLevel, rhs: HDCPLevel) -> Bool { lhs.rank < rhs.rank }
}
