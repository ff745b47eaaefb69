import Foundation
import MediaDRMJSON

/// Validates bearer tokens: the signature first (against the configured issuers' keys), then
/// `iss`, `aud`, `exp`, `nbf`, `iat`, `sub`, then the project's claims (`entitlements`,
/// `rentals`). Dates must be JSON numbers. A token is accepted only if its `iss` names an
/// issuer one of whose keys verified it.
public struct JWTValidator: Sendable {
    public var issuers: [JWTIssuer]
    /// The token's `aud` (a string or an array of strings) must contain one of these. An empty
    /// set accepts no token.
    public var audiences: Set<String>
    /// Tolerance, in seconds, applied to `exp`, `nbf` and `iat`. Negative values count as 0.
    public var clockSkew: TimeInterval
    /// When false, a token without `exp` is accepted (one that has it is still checked).
    public var requiresExpiration: Bool
    /// When true (the default), a token without a string `sub` is refused.
    public var requiresSubject: Bool
    /// The current time; injectable for tests.
    public var clock: @Sendable () -> Date

    public init(
        issuers: [JWTIssuer],
        audiences: Set<String>,
        clockSkew: TimeInterval = 60,
        requiresExpiration: Bool = true,
        requiresSubject: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.clockSkew = clockSkew
        self.requiresExpiration = requiresExpiration
        self.requiresSubject = requiresSubject
        self.clock = clock
    }

    /// A validator for one issuer.
    public init(
        issuer: String,
        keys: [JWSVerificationKey],
        audiences: Set<String>,
        clockSkew: TimeInterval = 60,
        requiresExpiration: Bool = true,
        requiresSubject: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            issuers: [JWTIssuer(issuer, keys: keys)], audiences: audiences, clockSkew: clockSkew,
            requiresExpiration: requiresExpiration, requiresSubject: requiresSubject, clock: clock)
    }

    /// Verifies and validates a token; see the type's documentation for the order of checks.
    public func validate(_ token: String) throws(JOSEError) -> JWTClaims {
        let jws = try CompactJWS(token)
        let allKeys = issuers.flatMap(\.keys)
        var owner: [Int] = []
        for (issuerIndex, issuer) in issuers.enumerated() {
            owner.append(contentsOf: repeatElement(issuerIndex, count: issuer.keys.count))
        }
        let keyIndex = try jws.verifiedKeyIndex(in: allKeys)
        let claims = try JWT.claimsObject(jws.payload)

        let wrongType = JOSEError(.invalidClaim, "a registered claim has the wrong JSON type")
        guard let iss = try claims.joseString("iss", wrongType) else {
            throw JOSEError(.missingClaim, "token has no iss claim")
        }
        guard owner.indices.contains(keyIndex), try isVouched(iss, by: owner[keyIndex], jws) else {
            throw JOSEError(.wrongIssuer, "token iss is not the issuer of the verifying key")
        }

        let audience: [String]
        switch claims["aud"] {
        case nil:
            throw JOSEError(.missingClaim, "token has no aud claim")
        case .string(let single):
            audience = [single]
        case .array:
            guard let list = try claims.joseStringArray("aud", wrongType) else {
                throw JOSEError(.missingClaim, "token has no aud claim")
            }
            audience = list
        default:
            throw wrongType
        }
        guard audience.contains(where: audiences.contains) else {
            throw JOSEError(.wrongAudience, "token aud names no accepted audience")
        }

        let times = try checkTimes(claims)

        let subject = try claims.joseString("sub", wrongType)
        if requiresSubject, subject == nil {
            throw JOSEError(.missingClaim, "token has no sub claim")
        }
        return JWTClaims(
            header: jws.header, raw: claims, issuer: iss, subject: subject, audience: audience,
            expiresAt: times.expiresAt, notBefore: times.notBefore, issuedAt: times.issuedAt,
            jwtID: try claims.joseString("jti", wrongType),
            entitlements: try JWTClaims.entitlements(in: claims),
            rentals: try JWTClaims.rentals(in: claims))
    }

    /// Whether issuer `iss` is the owner of the verifying key, or another configured issuer
    /// named `iss` also has a key that verifies the token (two issuers may share a key).
    private func isVouched(_ iss: String, by ownerIndex: Int, _ jws: CompactJWS) throws(JOSEError) -> Bool {
        guard issuers.indices.contains(ownerIndex) else { return false }
        if issuers[ownerIndex].identifier == iss { return true }
        for issuer in issuers where issuer.identifier == iss {
            if (try? jws.verifiedKeyIndex(in: issuer.keys)) != nil { return true }
        }
        return false
    }

    /// Checks `exp`, `nbf` and `iat` of a claims set against the clock with the skew:
    /// expired when now >= exp + skew; not yet valid when now < nbf - skew; issued in the
    /// future when iat > now + skew. Usable on its own for tokens verified by other means.
    @discardableResult
    public func checkTimes(_ claims: JSONObject) throws(JOSEError) -> (expiresAt: Date?, notBefore: Date?, issuedAt: Date?) {
        let wrongType = JOSEError(.invalidClaim, "a date claim is not a JSON number")
        let now = clock().timeIntervalSince1970
        let skew = clockSkew.isFinite && clockSkew > 0 ? clockSkew : 0

        let exp = try claims.joseNumericDate("exp", wrongType)
        if let exp {
            guard now < exp + skew else { throw JOSEError(.expired, "token has expired") }
        } else if requiresExpiration {
            throw JOSEError(.missingClaim, "token has no exp claim")
        }
        let nbf = try claims.joseNumericDate("nbf", wrongType)
        if let nbf, now < nbf - skew {
            throw JOSEError(.notYetValid, "token is not valid yet")
        }
        let iat = try claims.joseNumericDate("iat", wrongType)
        if let iat, iat > now + skew {
            throw JOSEError(.issuedInFuture, "token was issued in the future")
        }
        return (exp.map(Date.init(timeIntervalSince1970:)), nbf.map(Date.init(timeIntervalSince1970:)),
                iat.map(Date.init(timeIntervalSince1970:)))
    }
}
