import Foundation
import MediaDRMJSON

/// JSON Web Tokens (RFC 7519) as compact JWS with a JSON object payload.
public enum JWT {
    /// Signs a claims set. The header gets `typ: JWT`, `alg` and (from the key) `kid`.
    public static func sign(claims: JSONObject, key: JWSSigningKey) throws(JOSEError) -> String {
        try JWS.sign(
            payload: JSONWriter.write(.object(claims)),
            header: JSONObject([("typ", JSONValue.string("JWT"))]),
            key: key
        )
    }

    /// A NumericDate claim value: whole seconds since the epoch, as a JSON number.
    public static func numericDate(_ date: Date) -> JSONValue {
        .number(JSONNumber(Int(date.timeIntervalSince1970.rounded(.down))))
    }

    /// Reads a token's claims WITHOUT verifying its signature or any claim; see
    /// `JWS.unverifiedContents(of:)`. For tokens such as an OpenTDF signed request token whose
    /// signing key is only known after reading them; never a basis for trust on its own.
    public static func unverifiedClaims(of token: String) throws(JOSEError) -> JSONObject {
        try claimsObject(JWS.unverifiedContents(of: token).payload)
    }

    static func claimsObject(_ payload: Data) throws(JOSEError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(payload)
        } catch {
            throw JOSEError(.malformed, "token claims are not valid JSON or repeat a member")
        }
        guard case .object(let claims) = value else {
            throw JOSEError(.malformed, "token claims are not a JSON object")
        }
        return claims
    }
}
