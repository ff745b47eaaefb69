import Foundation
import MediaDRMEncoding

/// Base64url as JOSE uses it (RFC 7515 §2): the URL-safe alphabet, no padding, no whitespace,
/// canonical trailing bits. Checked here before decoding so '=' padding is refused whatever the
/// Encoding module tolerates.
enum JOSEBase64URL {
    static func decode<S: StringProtocol>(_ text: S, _ failure: JOSEError) throws(JOSEError) -> Data {
        for byte in text.utf8 where !isAlphabet(byte) { throw failure }
        do {
            return try Base64URL.decode(text)
        } catch {
            throw failure
        }
    }

    static func encode(_ bytes: some DataProtocol) -> String { Base64URL.encode(bytes) }

    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
