import Foundation
import MediaDRMJOSE
import MediaDRMJSON

/// The OpenTDF signed request token: a JWT whose `requestBody` claim is the JSON text of an
/// `UnsignedRewrapRequest`, signed by the client's DPoP key.
///
/// Its time claims are always checked (`exp` required; `iat` and `nbf` not in the future,
/// within the skew). Its signature is checked only when the request presents a DPoP key:
/// OpenTDF clients without DPoP (otdf-python 0.11.0 among them) sign it with a key the KAS never
/// sees, so without DPoP the token binds nothing and the bearer token alone authorizes the
/// request (docs/protocol.md says so).
package enum SignedRequestToken {
    public static let defaultClockSkew: TimeInterval = 60
    /// The longest `requestBody` text read.
    public static let maximumRequestBodyBytes = 1 << 20

    public static func parse(_ token: String, now: Date, clockSkew: TimeInterval = defaultClockSkew,
                             dpopKey: JWSVerificationKey? = nil,
                             limits: UnsignedRewrapRequest.Limits = .default) throws(OpenTDFError) -> UnsignedRewrapRequest {
        guard !token.isEmpty else { throw OpenTDFError(.malformedRequest, "signedRequestToken is missing") }
        let claims: JSONObject
        do {
            claims = try JWT.unverifiedClaims(of: token)
        } catch {
            throw OpenTDFError(.unauthenticated, "signedRequestToken is not a well-formed JWT")
        }
        try checkTimes(claims, now: now, clockSkew: clockSkew)
        if let dpopKey {
            do {
                _ = try JWS.verify(token, key: dpopKey)
            } catch {
                throw OpenTDFError(.unauthenticated, "signedRequestToken does not verify with the DPoP key")
            }
        }
        guard case .string(let body)? = claims["requestBody"] else {
            throw OpenTDFError(.malformedRequest, "signedRequestToken has no requestBody string")
        }
        guard body.utf8.count <= maximumRequestBodyBytes else {
            throw OpenTDFError(.tooLarge, "signedRequestToken requestBody is larger than the limit")
        }
        return try UnsignedRewrapRequest(json: ProtoJSON.parse(Data(body.utf8), "requestBody"), limits: limits)
    }

    static func checkTimes(_ claims: JSONObject, now: Date, clockSkew: TimeInterval) throws(OpenTDFError) {
        let current = now.timeIntervalSince1970
        guard let expiresAt = try date(claims, "exp") else {
            throw OpenTDFError(.unauthenticated, "signedRequestToken has no exp")
        }
        guard expiresAt + clockSkew > current else {
            throw OpenTDFError(.unauthenticated, "signedRequestToken is expired")
        }
        if let issuedAt = try date(claims, "iat"), issuedAt - clockSkew > current {
            throw OpenTDFError(.unauthenticated, "signedRequestToken is issued in the future")
        }
        if let notBefore = try date(claims, "nbf"), notBefore - clockSkew > current {
            throw OpenTDFError(.unauthenticated, "signedRequestToken is not yet valid")
        }
    }

    private static func date(_ claims: JSONObject, _ name: String) throws(OpenTDFError) -> Double? {
        guard let value = claims[name] else { return nil }
        guard case .number(let number) = value, let seconds = number.double, seconds.isFinite else {
            throw OpenTDFError(.unauthenticated, "signedRequestToken \(name) is not a NumericDate")
        }
        return seconds
    }
}
