import Foundation

/// SHA-256 (FIPS 180-4).
public enum SHA256Digest {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `data`.
    public static func hash(data: some DataProtocol) -> Data {
        withSymmetricInputBytes(data) { Data(openSSLDigest($0)) }
    }
}
