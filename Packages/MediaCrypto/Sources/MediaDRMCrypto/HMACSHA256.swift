import Foundation

/// HMAC (RFC 2104) with SHA-256.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key`. Keys of any length are accepted, as
    /// RFC 2104 allows (longer than the block are hashed, shorter are zero padded).
    public static func authenticationCode(_ message: some DataProtocol, key: SecretKey) -> Data {
        Data(sha256Bytes(message, key: key))
    }

    /// Whether `mac` is the HMAC-SHA256 of `message` under `key`. The comparison runs in time
    /// independent of where the bytes differ; only a length mismatch returns early (the length
    /// of a MAC is public).
    public static func isValid(_ mac: some DataProtocol, for message: some DataProtocol, key: SecretKey) -> Bool {
        let expected = sha256Bytes(message, key: key)
        return withSymmetricInputBytes(mac) { ConstantTime.equals($0, expected) }
    }

    static func sha256Bytes(_ message: some DataProtocol, key: SecretKey) -> [UInt8] {
        key.withUnsafeBytes { keyBytes in
            withSymmetricInputBytes(message) { messageBytes in
                // RFC 2104 replaces a key longer than the 64-byte block by its hash; doing it here
                // keeps every key length within OpenSSL's `int` key length.
                if keyBytes.count > 64 {
                    return SHA256Digest.openSSLDigest(keyBytes).withUnsafeBytes {
                        openSSLHMACSHA256(key: $0, message: messageBytes)
                    }
                }
                return openSSLHMACSHA256(key: keyBytes, message: messageBytes)
            }
        }
    }
}
