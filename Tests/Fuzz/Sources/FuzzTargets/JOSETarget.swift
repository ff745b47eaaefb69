import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON

/// JWS, JWT and JWK: the input is tried as a compact token, validated against the fixture key
/// ring's dev issuer (the seeds are its `kas token` tokens) at the token's own `iat`, so that
/// the claim checks after the signature are reached whenever the token was issued; and as a JWK
/// and a JWK set.
enum JOSETarget {
    static let target = FuzzTarget("jose", "JWTValidator, JWS/JWT unverified parsing, JWK and JWKS") { input throws(FuzzViolation) in
        var accepted = false
        if let text = String(validating: input, as: UTF8.self) {
            _ = try? JWS.unverifiedContents(of: text)
            if let key = issuerKey, let claims = try? JWT.unverifiedClaims(of: text) {
                let issued = (try? claims.optionalInt64("iat")).flatMap { $0 }.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
                let validator = JWTValidator(issuer: DevIssuer.issuer, keys: [key], audiences: [DevIssuer.audience],
                                             clock: { issued })
                _ = try? validator.checkTimes(claims)
                accepted = (try? validator.validate(text)) != nil
            }
        }
        if let key = try? JWK(jsonData: input) {
            accepted = (try? key.verificationKey()) != nil
        }
        if let set = try? JWKSet(jsonData: input, skippingUnsupportedKeys: true) {
            accepted = (try? set.verificationKeys()) != nil
        }
        return accepted ? .accepted : .refused
    }

    /// The fixture dev issuer's verification key, as `kas serve` configures it.
    static let issuerKey: JWSVerificationKey? = KASFixture.keyRing?.devIssuer?.verificationKey
}
