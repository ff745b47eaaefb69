import Foundation

/// RSA with the paddings the system uses: OAEP for key wrapping, PKCS#1 v1.5 SHA-256 for JWS
/// RS256. Keys under 2048 bits are refused on every import and generation (`.weakKey`).
public enum RSA {
    /// The smallest modulus accepted anywhere.
    public static let minimumKeySizeInBits = 2048
    /// The largest modulus accepted (OpenSSL's own limit for public-key operations).
    public static let maximumKeySizeInBits = 16384

    public enum Padding: Sendable, Equatable {
        /// OAEP with SHA-1 and MGF1-SHA-1, empty label: the OpenTDF `wrapped` key access form.
        case oaepSHA1
        /// OAEP with SHA-256 and MGF1-SHA-256, empty label.
        case oaepSHA256

        var digestByteCount: Int {
            switch self {
            case .oaepSHA1: return 20
            case .oaepSHA256: return 32
            }
        }
    }
}
