import COpenSSL
import Foundation

/// MD5 (RFC 1321). Broken as a collision-resistant hash: it exists here only because nginx's
/// `secure_link_md5` (the signed media URLs of docs/delivery.md) computes it over an expiry, a
/// path and a secret, and the KAS must produce the same value. Never use it for anything else.
public enum MD5 {
    /// The digest length in bytes.
    public static let byteCount = 16

    /// The 16-byte digest of `data`.
    public static func hash(data: some DataProtocol) -> Data {
        withSymmetricInputBytes(data) { Data(openSSLDigest($0, algorithm: EVP_md5(), byteCount: byteCount, name: "MD5")) }
    }
}
