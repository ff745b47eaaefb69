import Encoding
import Foundation
import JSON
import TDF

/// `manifest.json` of an fps-v2 package (§5): OpenTDF-style, with one `wrapped` key access per
/// component in the order of `arkavo:components`, each with its raw-form HS256 policy binding,
/// and `method.iv` the one content IV. `method.algorithm`, `payload` and `meta` are
/// informational (§5.1 #2).
///
/// ```json
/// {"encryptionInformation":{"type":"split","policy":"<base64 policy>",
///   "keyAccess":[{"type":"wrapped","url":"<kas>","protocol":"kas","wrappedKey":"<b64>",
///                 "policyBinding":{"alg":"HS256","hash":"<b64 of 32 bytes>"},"kid":"<kid>"}, ...],
///   "method":{"algorithm":"AES-128-CBCS","iv":"<b64 of 16 bytes>","isStreamable":true}},
///  "payload":{"type":"reference","url":"master.m3u8","protocol":"zip","mimeType":"application/vnd.apple.mpegurl","isEncrypted":true},
///  "meta":{"profile":"fmp4-cbcs-fps","profileVersion":2}}
/// ```
public enum FPSv2Manifest {
    public static let profile = "fmp4-cbcs-fps"

    public static func json(policyBase64: String, keyAccess: [KeyAccessObject], iv: [UInt8]) -> Data {
        let method: JSONValue = .object(JSONObject([
            ("algorithm", .string("AES-128-CBCS")), ("iv", .string(Base64.encode(iv))), ("isStreamable", .bool(true)),
        ]))
        let info: JSONValue = .object(JSONObject([
            ("type", .string("split")), ("policy", .string(policyBase64)),
            ("keyAccess", .array(keyAccess.map(\.jsonValue))), ("method", method),
        ]))
        let payload: JSONValue = .object(JSONObject([
            ("type", .string("reference")), ("url", .string("master.m3u8")), ("protocol", .string("zip")),
            ("mimeType", .string("application/vnd.apple.mpegurl")), ("isEncrypted", .bool(true)),
        ]))
        let meta: JSONValue = .object(JSONObject([("profile", .string(profile)), ("profileVersion", .number(JSONNumber(2)))]))
        return JSONWriter.write(.object(JSONObject([("encryptionInformation", info), ("payload", payload), ("meta", meta)])),
                                options: [])
    }
}
