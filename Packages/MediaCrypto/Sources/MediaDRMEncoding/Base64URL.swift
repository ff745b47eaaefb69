import Foundation

/// RFC 4648 §5 Base64 with the URL and filename safe alphabet. Encodes without padding, as JOSE
/// (RFC 7515 §2) requires.
public enum Base64URL {
    public static func encode(_ bytes: some DataProtocol) -> String {
        Base64Codec.url.encode(bytes, padded: false)
    }

    /// Accepts the unpadded form and, for interoperability, exactly-right `=` padding. Refuses
    /// `+`, `/`, whitespace and non-zero pad bits. A JOSE verifier that must refuse padding
    /// checks for `=` itself (see `isUnpadded`).
    public static func decode(_ text: some StringProtocol) throws(EncodingError) -> Data {
        try Base64Codec.url.decode(text, paddingRequired: false)
    }

    /// `true` when the text carries no `=` padding (the only form RFC 7515 allows).
    public static func isUnpadded(_ text: some StringProtocol) -> Bool {
        !text.utf8.contains(UInt8(ascii: "="))
    }
}
