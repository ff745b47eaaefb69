import Foundation
import MediaDRMJSON

/// A JWK Set (RFC 7517 §5): `{"keys": [...]}`.
public struct JWKSet: Sendable {
    public var keys: [JWK]

    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// Parses a JWK Set with the strict JSON parser. By default every member of `keys` must be
    /// a key this module understands; with `skippingUnsupportedKeys`, members that fail to parse
    /// (other key types or curves, weak RSA keys, missing members) are left out as RFC 7517 §5
    /// suggests for sets published by others.
    public init(jsonData: some DataProtocol, skippingUnsupportedKeys: Bool = false) throws(JOSEError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(jsonData)
        } catch {
            throw JOSEError(.malformed, "JWK Set is not valid JSON")
        }
        guard case .object(let object) = value else {
            throw JOSEError(.malformed, "JWK Set is not a JSON object")
        }
        try self.init(jsonObject: object, skippingUnsupportedKeys: skippingUnsupportedKeys)
    }

    public init(jsonObject object: JSONObject, skippingUnsupportedKeys: Bool = false) throws(JOSEError) {
        guard let member = object["keys"] else {
            throw JOSEError(.malformed, "JWK Set has no keys member")
        }
        guard case .array(let items) = member else {
            throw JOSEError(.malformed, "JWK Set keys is not an array")
        }
        var keys: [JWK] = []
        for item in items {
            guard case .object(let keyObject) = item else {
                if skippingUnsupportedKeys { continue }
                throw JOSEError(.malformed, "JWK Set member is not an object")
            }
            do {
                keys.append(try JWK(jsonObject: keyObject))
            } catch {
                if skippingUnsupportedKeys { continue }
                throw error
            }
        }
        self.keys = keys
    }

    /// The first key with this `kid`.
    public func key(withID keyID: String) -> JWK? {
        keys.first { $0.keyID == keyID }
    }

    /// The keys meant for verifying signatures, as verification keys. Keys marked for another
    /// purpose (`use` not `sig`, `key_ops` without `verify`, an `alg` that is not a JWS
    /// algorithm implemented here) are left out; any other key that cannot be used is an error.
    public func verificationKeys() throws(JOSEError) -> [JWSVerificationKey] {
        var result: [JWSVerificationKey] = []
        for key in keys {
            if let use = key.use, use != "sig" { continue }
            if let ops = key.keyOperations, !ops.contains("verify") { continue }
            if key.algorithmName != nil, key.algorithm == nil { continue }
            result.append(try key.verificationKey())
        }
        return result
    }

    public var jsonObject: JSONObject {
        JSONObject([("keys", JSONValue.array(keys.map { .object($0.jsonObject) }))])
    }

    /// Compact JSON with sorted keys.
    public var jsonData: Data { JSONWriter.write(.object(jsonObject)) }
}
