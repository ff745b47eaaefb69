import Foundation

/// RFC 4648 §4 Base64, standard alphabet, always padded.
public enum Base64 {
    public static func encode(_ bytes: some DataProtocol) -> String {
        Base64Codec.standard.encode(bytes, padded: true)
    }

    /// Strict decoding: padding required, no whitespace or line breaks, no URL-safe symbols, and
    /// non-zero pad bits refused, so the only accepted text is `encode(result)`.
    public static func decode(_ text: some StringProtocol) throws(EncodingError) -> Data {
        try Base64Codec.standard.decode(text, paddingRequired: true)
    }
}
