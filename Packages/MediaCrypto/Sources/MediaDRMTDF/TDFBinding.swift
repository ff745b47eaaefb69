// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation

/// Keyed bindings: the policy binding of a key access object and the fps-v2 `keyBinding` of a
/// component. Both are HMAC-SHA256 under the content (or payload) key.
public enum TDFBinding {
    /// How an HMAC is written into a manifest.
    public enum Form: Sendable, Equatable {
        /// base64 of the 32 raw bytes: fps-v2 policy bindings, TDF 4.3.0 integrity values.
        case raw
        /// base64 of the 64-character lowercase hex text: what the OpenTDF Go SDK writes for
        /// policy bindings (and legacy TDFs for integrity values).
        case hex
    }

    /// The domain-separation prefix of a component's `keyBinding` (fps-v2 §5.3).
    public static let keyBindingPrefix = "arkavo:fps:component:v1:"

    /// The policy binding of `key` over the policy's base64 text exactly as stored.
    public static func policyBinding(policyBase64: String, key: SecretKey, form: Form) -> String {
        encode(HMACSHA256.authenticationCode(Data(policyBase64.utf8), key: key), form: form)
    }

    /// True when `binding` is either form of HMAC-SHA256(key, policyBase64). Compared in
    /// constant time; a binding that is not canonical base64 of 32 or 64 bytes is false.
    public static func isValidPolicyBinding(_ binding: String, policyBase64: String, key: SecretKey) -> Bool {
        matches(binding, mac: HMACSHA256.authenticationCode(Data(policyBase64.utf8), key: key), allowHex: true)
    }

    /// fps-v2 §5.3: base64(HMAC-SHA256(key, "arkavo:fps:component:v1:" + id)).
    public static func keyBinding(componentID: String, key: SecretKey) -> String {
        Base64.encode(HMACSHA256.authenticationCode(Data((keyBindingPrefix + componentID).utf8), key: key))
    }

    /// True when `binding` is the raw-form keyBinding of `componentID` under `key` (constant time).
    public static func isValidKeyBinding(_ binding: String, componentID: String, key: SecretKey) -> Bool {
        matches(binding, mac: HMACSHA256.authenticationCode(Data((keyBindingPrefix + componentID).utf8), key: key), allowHex: false)
    }

    static func encode(_ mac: Data, form: Form) -> String {
        switch form {
        case .raw: Base64.encode(mac)
        case .hex: Base64.encode(Data(Hex.encode(mac).utf8))
        }
    }

    /// Compares a stored base64 value with a MAC: the raw bytes, or (when allowed) their hex
    /// text in either case. The length of the stored value is public; the contents are compared
    /// without an early exit.
    static func matches(_ stored: String, mac: Data, allowHex: Bool) -> Bool {
        guard let decoded = try? Base64.decode(stored) else { return false }
        if decoded.count == mac.count {
            return ConstantTime.equals(decoded, mac)
        }
        if allowHex, decoded.count == mac.count * 2 {
            let lowered = decoded.map { byte -> UInt8 in (byte >= 0x41 && byte <= 0x46) ? byte + 0x20 : byte }
            return ConstantTime.equals(lowered, Array(Hex.encode(mac).utf8))
        }
        return false
    }
}
