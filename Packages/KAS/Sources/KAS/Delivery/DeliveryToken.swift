import Foundation
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON

/// The delivery API's URL tokens (docs/delivery.md#delivery-tokens): `GET /v2/media/{assetId}?token=JWT`
/// where the operator's backend signs an HS256 JWT with the delivery secret, a key used for
/// nothing else. Claims: `resource` = the request path, `exp` at most ten minutes ahead, `sub`
/// = the viewer, and the viewer's `entitlements` and `rentals` as in bearer tokens.
public struct DeliveryTokenKey: Sendable {
    /// A token may not live longer than this (a URL leaks: logs, history, Referer).
    public static let maximumLifetime: TimeInterval = 600
    /// Tolerated clock difference with the signer.
    static let clockSkew: TimeInterval = 60
    /// The `Identity.issuer` of a delivery token's viewer: the KAS itself signed it.
    static let issuer = "kas-delivery"

    private let signing: JWSSigningKey
    private let verification: JWSVerificationKey

    /// The key from a 0600 file of at least 32 bytes.
    public static func load(path: String) throws(DeliverySecretError) -> DeliveryTokenKey {
        let bytes = try DeliverySecretError.readFile(path, "delivery secret file")
        return try DeliveryTokenKey(secret: bytes, source: "the delivery secret file '\(path)'")
    }

    init(secret: [UInt8], source: String) throws(DeliverySecretError) {
        do {
            signing = try JWSSigningKey(hmac: SymmetricKey(data: secret))
            verification = try JWSVerificationKey(hmac: SymmetricKey(data: secret))
        } catch {
            throw DeliverySecretError("\(source) is not a usable HS256 key (at least 32 bytes, not a public key): \(error.reason)")
        }
    }

    /// A token for `resource` (a `/v2/media/{assetId}` path) and `subject`, with extra claims
    /// (`entitlements`, `rentals`), valid `lifetime` seconds (at most ten minutes).
    public func sign(resource: String, subject: String, claims: JSONObject = JSONObject(), lifetime: TimeInterval,
                     now: Date = Date()) throws(DeliverySecretError) -> String {
        guard lifetime > 0, lifetime <= Self.maximumLifetime else {
            throw DeliverySecretError("a delivery token lives at most \(Int(Self.maximumLifetime)) seconds")
        }
        var members = claims
        members["resource"] = .string(resource)
        members["sub"] = .string(subject)
        members["iat"] = JWT.numericDate(now)
        members["exp"] = JWT.numericDate(now.addingTimeInterval(lifetime))
        do {
            return try JWT.sign(claims: members, key: signing)
        } catch {
            throw DeliverySecretError("the delivery token could not be signed: \(error.reason)")
        }
    }

    /// The viewer of a valid token for `resource`; the error's reason is fixed text, never token data.
    func verify(_ token: String, resource: String, now: Date) throws(HTTPError) -> Identity {
        let refused = HTTPError(.unauthorized, reason: "invalid delivery token")
        guard let (_, payload) = try? JWS.verify(token, key: verification),
              case .object(let claims)? = try? JSONParser.parse(payload),
              case .string(let subject)? = claims["sub"], !subject.isEmpty,
              case .string(let claimedResource)? = claims["resource"],
              let expires = claims["exp"]?.double
        else { throw refused }
        guard claimedResource == resource else { throw HTTPError(.unauthorized, reason: "delivery token for another resource") }
        let now = now.timeIntervalSince1970
        guard expires > now - Self.clockSkew else { throw HTTPError(.unauthorized, reason: "delivery token expired") }
        guard expires <= now + Self.maximumLifetime + Self.clockSkew else {
            throw HTTPError(.unauthorized, reason: "delivery token lives longer than 10 minutes")
        }
        // The project's claims read as the bearer-token validator reads them: a malformed
        // `entitlements` or `rentals` refuses the token rather than granting nothing silently.
        guard let entitlements = try? JWTClaims.entitlements(in: claims),
              let purchases = try? JWTClaims.rentals(in: claims)
        else { throw refused }
        return Identity(subject: subject, issuer: Self.issuer, entitlements: entitlements,
                        rentals: purchases.mapValues { Int64($0.timeIntervalSince1970.rounded(.down)) },
                        claims: claims, expiresAt: Date(timeIntervalSince1970: expires))
    }
}
