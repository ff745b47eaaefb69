import Foundation
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON

/// The development token issuer kept in the key ring: an ES256 (P-256) key that `kas token`
/// signs with and that `kas serve` trusts unless the configuration sets `"devIssuer": false`.
/// Its tokens carry `iss` = `DevIssuer.issuer` and `aud` = `DevIssuer.audience`, fixed strings
/// so a token minted before the server's URL is decided still verifies.
public struct DevIssuer: Sendable, CustomStringConvertible {
    /// The `iss` of every dev token.
    public static let issuer = "urn:mediadrm:kas:dev-issuer"
    /// The `aud` of every dev token, and the audience the dev issuer is trusted for.
    public static let audience = "urn:mediadrm:kas"

    public let kid: String
    public let created: Date
    let privateKey: ECP256.Signing.PrivateKey

    init(kid: String, created: Date, privateKey: ECP256.Signing.PrivateKey) {
        self.kid = kid
        self.created = created
        self.privateKey = privateKey
    }

    public var signingKey: JWSSigningKey { JWSSigningKey(p256: privateKey, keyID: kid) }
    public var verificationKey: JWSVerificationKey { JWSVerificationKey(p256: privateKey.publicKey, keyID: kid) }
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// The claims `iss`, `aud`, `sub`, `iat`, `nbf` and `exp` are set here; `extraClaims` adds
    /// others (`entitlements`, `rentals`, ...) and may not repeat those six.
    public func token(subject: String, lifetime: TimeInterval, extraClaims: JSONObject = JSONObject(),
                      now: Date = Date()) throws(JOSEError) -> String {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        var members: [(String, JSONValue)] = [
            ("iss", .string(Self.issuer)),
            ("aud", .string(Self.audience)),
            ("sub", .string(subject)),
            ("iat", .number(JSONNumber(issued))),
            ("nbf", .number(JSONNumber(issued))),
            ("exp", .number(JSONNumber(issued + Int64(lifetime.rounded(.down))))),
        ]
        for (name, value) in extraClaims {
            guard !Self.reservedClaims.contains(name) else {
                throw JOSEError(.invalidClaim, "extra claims may not set iss, aud, sub, iat, nbf or exp")
            }
            members.append((name, value))
        }
        return try JWT.sign(claims: JSONObject(members), key: signingKey)
    }

    public static let reservedClaims: Set<String> = ["iss", "aud", "sub", "iat", "nbf", "exp"]

    public var description: String { "DevIssuer(\(kid))" }
}
