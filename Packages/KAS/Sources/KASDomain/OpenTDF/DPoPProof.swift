import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJOSE
import MediaDRMJSON

/// A DPoP proof (RFC 9449) presented with a rewrap: its embedded public key is the one the
/// signed request token must verify with. Checked: `typ` dpop+jwt, an asymmetric `jwk` in the
/// header that verifies the proof, `htm` the request method, `htu` naming the request path,
/// `iat` within the window, and `ath` the hash of the access token presented with it.
package enum DPoPProof {
    /// How far `iat` may lie from now, either way.
    public static let window: TimeInterval = 300

    public static func verificationKey(proof: String, method: String, path: String, accessToken: String,
                                       now: Date) throws(OpenTDFError) -> JWSVerificationKey {
        let refused = OpenTDFError(.unauthenticated, "the DPoP proof is not valid")
        guard let header = try? JWS.unverifiedContents(of: proof).header,
              case .string("dpop+jwt")? = header["typ"],
              case .object(let jwkObject)? = header["jwk"],
              let jwk = try? JWK(jsonObject: jwkObject),
              jwk.keyType != .oct,
              let key = try? jwk.verificationKey(),
              let payload = try? JWS.verify(proof, key: key).payload,
              case .object(let claims)? = try? JSONParser.parse(payload)
        else { throw refused }
        guard case .string(let htm)? = claims["htm"], htm == method,
              case .string(let htu)? = claims["htu"], URLComponents(string: htu)?.path == path,
              case .number(let iat)? = claims["iat"], let issued = iat.double,
              abs(issued - now.timeIntervalSince1970) <= window,
              case .string(let ath)? = claims["ath"],
              ath == Base64URL.encode(SHA256Digest.hash(data: Data(accessToken.utf8)))
        else { throw refused }
        return key
    }
}
