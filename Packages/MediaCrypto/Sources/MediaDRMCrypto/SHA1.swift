import COpenSSL
import Foundation

/// SHA-1 (FIPS 180-4). Broken as a collision-resistant hash: it exists here only because Redis
/// names cached Lua scripts by the SHA-1 of their source (`EVALSHA`), and the KAS must compute
/// the same name. Never use it for anything else.
public enum SHA1 {
    /// The digest length in bytes.
    public static let byteCount = 20

    /// The 20-byte digest of `data`.
    public static func hash(data: some DataProtocol) -> Data {
        withSymmetricInputBytes(data) { Data(openSSLDigest($0, algorithm: EVP_sha1(), byteCount: byteCount, name: "SHA-1")) }
    }
}
