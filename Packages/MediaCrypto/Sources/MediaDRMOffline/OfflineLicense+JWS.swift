import Foundation
import MediaDRMJOSE
import MediaDRMJSON

// The licence as a compact JWS (RFC 7515): header {"alg": "ES256", "kid", "typ":
// "mediadrm-offline-license+jwt"}, signed with the KAS's licence-signing key (docs/offline.md).
extension OfflineLicense {
    /// The longest licence read: two keys and the names fit in a few KiB.
    public static let maxCompactLength = 16 * 1024

    /// The compact JWS of this payload. Refused: a key that is not ES256 or has no `kid`
    /// (players pick the published key by `kid`).
    public func signed(with key: JWSSigningKey) throws(OfflineLicenseError) -> String {
        guard key.algorithm == .es256, key.keyID != nil else {
            throw OfflineLicenseError(.badSignature, "the licence-signing key must be an ES256 key with a kid")
        }
        let header = JSONObject([("typ", .string(Self.type))])
        do {
            return try JWS.sign(payload: JSONWriter.write(jsonValue), header: header, key: key)
        } catch {
            throw OfflineLicenseError(.badSignature, "the licence could not be signed")
        }
    }

    /// Verifies a compact licence with the published licence-signing keys (the JWKS of
    /// `GET /media/v1/offline-signing-keys`) and reads its payload. The header must be ES256,
    /// name a `kid` of the set and carry the licence `typ`. Only the signature and shape are
    /// checked here: the device thumbprint, `exp` and the playback window are the player's
    /// checks against its own key and clock.
    public static func verified(_ compact: String, signingKeys: JWKSet) throws(OfflineLicenseError) -> OfflineLicense {
        guard compact.utf8.count <= maxCompactLength else {
            throw OfflineLicenseError(.malformed, "the licence is longer than \(maxCompactLength) bytes")
        }
        let keys: [JWSVerificationKey]
        do {
            keys = try signingKeys.verificationKeys().filter { $0.algorithm == .es256 && $0.keyID != nil }
        } catch {
            throw OfflineLicenseError(.badSignature, "the licence-signing key set has an unusable key")
        }
        let header: JSONObject
        let payload: Data
        do {
            let token = try JWS.unverifiedContents(of: compact)
            // A kid is required, so a key without one is never a fallback candidate.
            guard case .string(let kid)? = token.header["kid"], keys.contains(where: { $0.keyID == kid }) else {
                throw OfflineLicenseError(.badSignature, "the licence names no published licence-signing key")
            }
            (header, payload) = try JWS.verify(compact, keys: keys)
        } catch let error as OfflineLicenseError {
            throw error
        } catch {
            throw OfflineLicenseError(.badSignature, "the licence signature does not verify with the published keys")
        }
        guard case .string(Self.type)? = header["typ"], case .string("ES256")? = header["alg"] else {
            throw OfflineLicenseError(.badSignature, "the JWS is not an ES256 offline licence")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(payload)
        } catch {
            throw OfflineLicenseError(.malformed, "the payload is not strict JSON")
        }
        return try OfflineLicense(json: json)
    }
}
