/// AES (FIPS 197) in the modes the system uses: GCM for TDF payloads and key wrapping, CBC
/// without padding, and the ISO/IEC 23001-7 `cbcs` pattern cipher for media samples.
public enum AESCipher {
    /// The AES block size in bytes.
    public static let blockByteCount = 16

    static func checkKeySize(_ key: SecretKey) throws(CryptoError) {
        switch key.byteCount {
        case 16, 24, 32: return
        default: throw CryptoError(.invalidSize, "AES key must be 128, 192 or 256 bits")
        }
    }
}
