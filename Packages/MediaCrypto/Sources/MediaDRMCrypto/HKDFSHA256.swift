import Foundation

/// HKDF (RFC 5869) extract-and-expand.
public enum HKDFSHA256 {
    /// HKDF-SHA256. `outputByteCount` must be 1...8160 (255 blocks of 32 bytes); the input key
    /// material must not be empty. An empty salt means 32 zero bytes, as RFC 5869 §2.2 says.
    public static func deriveKey(inputKeyMaterial: SecretKey, salt: some DataProtocol, info: some DataProtocol,
                                 outputByteCount: Int) throws(CryptoError) -> SecretKey {
        guard outputByteCount >= 1, outputByteCount <= 255 * 32 else {
            throw CryptoError(.invalidSize, "HKDF-SHA256 output must be 1 to 8160 bytes")
        }
        guard inputKeyMaterial.byteCount > 0 else {
            throw CryptoError(.invalidInput, "HKDF input key material must not be empty")
        }
        return try HKDFBackend.sha256(inputKeyMaterial: inputKeyMaterial, salt: Array(salt), info: Array(info),
                                      outputByteCount: outputByteCount)
    }
}
