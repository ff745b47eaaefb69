import Foundation
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON

/// The delivery API's URL tokens (docs/delivery.md#delivery-tokens): `GET /v2/media/{assetId}?token=JWT`
/// where the operator's backend signs an HS256 JWT with the delivery secret, a key used for
/// nothing else. Claims: `resource` = the request path, `exp` at most ten minutes ahead, `sub`
/// = the viewer, and the viewer's `entitlements` and `rentals` as in bearer tokens.
package struct DeliveryTokenKey: Sendable {
    /// A token may not live longer than this (a URL leaks: logs, history, Referer).
    public static let maximumLifetime: TimeInterval = 600
    /// Tolerated clock difference with the signer.
    static let clockSkew: TimeInterval = 60

    private let signing: JWSSigningKey
    private let verification: JWSVerificationKey

    /// The key from a 0600 file of at least 32 bytes.
    public static func load(path: String) throws(DeliverySecretError) -> DeliveryTokenKey {
        let bytes = try DeliverySecretError.readFile(path, "delivery secret file")
        return try DeliveryTokenKey(secret: bytes, source: "the delivery secret file '\(path)'")
    }

    init(secret: [UInt8], source: String) throws(DeliverySecretError) {
        do {
            signing = try JWSSigningKey(hmac: SecretKey(data: secret))
            verification = try JWSVerificationKey(hmac: SecretKey(data: secret))
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
    func verify(_ token: String, resource: String, now: Date) throws(DeliveryFailure) -> Identity {
        let refused = DeliveryFailure.deliveryTokenRefused("invalid delivery token")
        guard let (_, payload) = try? JWS.verify(token, key: verification),
              case .object(let claims)? = try? JSONParser.parse(payload),
              case .string(let subject)? = claims["sub"], !subject.isEmpty,
              case .string(let claimedResource)? = claims["resource"],
              let expires = claims["exp"]?.double
        else { throw refused }
        guard claimedResource == resource else { throw .deliveryTokenRefused("delivery token for another resource") }
        let now = now.timeIntervalSince1970
        guard expires > now - Self.clockSkew else { throw .deliveryTokenRefused("delivery token expired") }
        guard expires <= now + Self.maximumLifetime + Self.clockSkew else {
            throw .deliveryTokenRefused("delivery token lives longer than 10 minutes")
        }
        return Self.identity(subject: subject, claims: claims)
    }

    /// The viewer a delivery token carries: the token is this KAS's own, signed over the claims of
    /// the viewer it verified when the playback started, so its project claims are read as given.
    /// A backend client's call vouches for its viewer in the same claims (`BackendPlaybackRequest`).
    static func identity(subject: String, claims: JSONObject) -> Identity {
        var rentals: [UUID: Int64] = [:]
        if case .object(let object)? = claims["rentals"] {
            for (key, value) in object {
                if let uuid = UUID(uuidString: key), let seconds = value.int64 ?? value.double.map({ Int64($0.rounded(.down)) }) {
                    rentals[uuid] = seconds
                }
            }
        }
        return Identity(subject: subject, issuer: claims["iss"]?.string ?? "",
                        entitlements: claims["entitlements"]?.array?.compactMap(\.string) ?? [], rentals: rentals,
                        claims: claims, expiresAt: claims["exp"]?.double.map(Date.init(timeIntervalSince1970:)))
    }
}
