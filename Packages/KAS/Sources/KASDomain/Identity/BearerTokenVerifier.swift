import MediaDRMCrypto
import Foundation
import MediaDRMJOSE
import MediaDRMJSON
import Synchronization

/// Verifies `Authorization: Bearer <JWT>` against the configured issuers: the token's `iss`
/// selects the issuer (an unknown one is refused), whose keys must verify the signature
/// (RS256, ES256 or HS256, each key bound to one algorithm; `alg: none` refused), then `iss`,
/// `aud` (one of the issuer's audiences), `exp` (required), `nbf`, `iat` with a 60 s skew, a
/// string `sub`, and the shapes of `entitlements` and `rentals`. Tokens are only ever taken from
/// the header, never from a URL. An issuer configured by discovery verifies with its provider's
/// current key set (`DiscoveredKeySet`): a `kid` it lacks triggers one rate-limited fetch, and a
/// set past its staleness window refuses the issuer's tokens (`issuerKeysUnavailable`).
public struct BearerTokenVerifier: Sendable {
    /// One trusted issuer and the audiences its tokens may name.
    public struct TrustedIssuer: Sendable {
        public var issuer: String
        public var audiences: Set<String>
        public var keys: [JWSVerificationKey]
        /// For an issuer configured with `discovery: true`: the keys read from its provider,
        /// used instead of `keys`.
        package var keySet: DiscoveredKeySet?

        public init(issuer: String, audiences: Set<String>, keys: [JWSVerificationKey]) {
            self.issuer = issuer
            self.audiences = audiences
            self.keys = keys
        }

        package init(issuer: String, audiences: Set<String>, keySet: DiscoveredKeySet) {
            self.init(issuer: issuer, audiences: audiences, keys: [])
            self.keySet = keySet
        }
    }

    public static let clockSkew: TimeInterval = 60
    /// Longest Authorization header value considered.
    public static let maximumHeaderLength = 16 * 1024

    /// Most verified tokens remembered at once.
    public static let verifiedCacheCapacity = 4096

    public let issuers: [TrustedIssuer]
    let clock: @Sendable () -> Date
    /// Tokens already verified by this verifier (so with these issuers and keys), keyed by the
    /// SHA-256 of the token: a player sends the same token with every request, and checking its
    /// signature again cost a tenth of a key request. Only the signature and the claim shapes are
    /// remembered; the time window is checked against the clock on every use.
    private let verified = VerifiedTokenCache(capacity: verifiedCacheCapacity)

    /// Fetches the discovered issuers' key sets in the background; `KASApplication` starts and stops it.
    package let keySetRefresher: KeySetRefresher

    public init(issuers: [TrustedIssuer], clock: @escaping @Sendable () -> Date = { Date() }) {
        self.issuers = issuers
        self.clock = clock
        self.keySetRefresher = KeySetRefresher(sets: issuers.compactMap(\.keySet), clock: clock)
    }

    /// Verifies the value(s) of the request's `Authorization` header.
    public func verify(authorizationHeaderValues values: [String]) throws(IdentityError) -> Identity {
        guard let value = values.first else {
            throw IdentityError(.missingToken, "no Authorization header")
        }
        guard values.count == 1 else {
            throw IdentityError(.malformedAuthorization, "more than one Authorization header")
        }
        return try verify(token: Self.bearerToken(in: value))
    }

    /// The token of a `Bearer <token>` header value (scheme case-insensitive, RFC 6750 §2.1).
    public static func bearerToken(in value: String) throws(IdentityError) -> String {
        let malformed = IdentityError(.malformedAuthorization, "Authorization is not 'Bearer <token>'")
        let bytes = Array(value.utf8)
        guard bytes.count <= maximumHeaderLength, bytes.count > 7,
              String(decoding: bytes[0..<6], as: UTF8.self).lowercased() == "bearer", bytes[6] == UInt8(ascii: " ")
        else { throw malformed }
        var start = 7
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        let token = bytes[start..<end]
        guard !token.isEmpty, token.allSatisfy(isTokenCharacter) else { throw malformed }
        return String(decoding: token, as: UTF8.self)
    }

    /// b64token (RFC 6750 §2.1).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// Verifies a compact JWT.
    public func verify(token: String) throws(IdentityError) -> Identity {
        let digest = SHA256Digest.hash(data: Array(token.utf8))
        let now = clock().timeIntervalSince1970
        if let (identity, generation) = verified.identity(for: digest, at: now),
           generation.map({ generation in keySet(of: identity.issuer)?.stillVerifies(generation: generation) ?? false }) ?? true {
            return identity
        }
        // Not remembered, outside its window now, or verified under a key set since replaced:
        // the full check gives the exact refusal.
        let (identity, window, generation) = try verifyUncached(token: token)
        verified.insert(identity, window: window, keySetGeneration: generation, for: digest, at: now)
        return identity
    }

    private func keySet(of issuer: String) -> DiscoveredKeySet? {
        issuers.first { $0.issuer == issuer }?.keySet
    }

    private func verifyUncached(token: String) throws(IdentityError) -> (Identity, Range<TimeInterval>, Int?) {
        let unverifiedIssuer: String
        do throws(JOSEError) {
            // Only routes to the issuer whose keys must then verify the token; never trusted as is.
            guard case .string(let iss) = try JWT.unverifiedClaims(of: token)["iss"] else {
                throw JOSEError(.missingClaim, "token has no string iss claim")
            }
            unverifiedIssuer = iss
        } catch {
            throw IdentityError(.invalidToken, "the token is not acceptable", tokenError: error.code)
        }
        let candidates = issuers.filter { $0.issuer == unverifiedIssuer }
        guard !candidates.isEmpty else {
            throw IdentityError(.invalidToken, "the token's issuer is not trusted", tokenError: .wrongIssuer)
        }
        var failure = JOSEError(.unknownKey, "no keys")
        for issuer in candidates {
            var keys = issuer.keys
            var generation: Int?
            if let keySet = issuer.keySet { (keys, generation) = try keySet.usableKeys() }
            do throws(JOSEError) {
                let (identity, window) = try validate(token, issuer: issuer, keys: keys)
                return (identity, window, generation)
            } catch {
                failure = error
            }
            // A kid the discovered set does not hold: the provider may have rotated since the last
            // fetch. One fetch (rate-limited, bounded in time), then one more try.
            guard failure.code == .unknownKey, let keySet = issuer.keySet, keySet.refetchForUnknownKey() else { continue }
            (keys, generation) = try keySet.usableKeys()
            do throws(JOSEError) {
                let (identity, window) = try validate(token, issuer: issuer, keys: keys)
                return (identity, window, generation)
            } catch {
                failure = error
            }
        }
        throw IdentityError(.invalidToken, "the token is not acceptable", tokenError: failure.code)
    }

    /// The signature and claims of `token` under one issuer's keys: the identity and the window
    /// (from `nbf`/`iat` to `exp`, with the skew) it is valid in.
    private func validate(_ token: String, issuer: TrustedIssuer,
                          keys: [JWSVerificationKey]) throws(JOSEError) -> (Identity, Range<TimeInterval>) {
        let validator = JWTValidator(issuer: issuer.issuer, keys: keys, audiences: issuer.audiences,
                                     clockSkew: Self.clockSkew, requiresExpiration: true, requiresSubject: true,
                                     clock: clock)
        let claims = try validator.validate(token)
        guard let subject = claims.subject, !subject.isEmpty else {
            throw JOSEError(.missingClaim, "token has an empty sub")
        }
        var rentals: [UUID: Int64] = [:]
        for (uuid, date) in claims.rentals {
            rentals[uuid] = Int64(date.timeIntervalSince1970.rounded(.down))
        }
        let identity = Identity(subject: subject, issuer: claims.issuer, entitlements: claims.entitlements,
                                rentals: rentals, claims: claims.raw, expiresAt: claims.expiresAt)
        // The same bounds JWTValidator.checkTimes applies: valid while
        // max(nbf - skew, iat - skew) <= now < exp + skew.
        let skew = Self.clockSkew
        var from = -TimeInterval.infinity
        if let nbf = claims.notBefore?.timeIntervalSince1970 { from = max(from, nbf - skew) }
        if let iat = claims.issuedAt?.timeIntervalSince1970 { from = max(from, iat - skew) }
        let until = (claims.expiresAt?.timeIntervalSince1970 ?? -TimeInterval.infinity) + skew
        return (identity, from < until ? from..<until : 0..<0)
    }
}

/// Bounded map from token digest to the identity it verified to and the window it is valid in.
final class VerifiedTokenCache: Sendable {
    /// `keySetGeneration`: the discovered key set's generation the token was verified under (nil
    /// for an issuer with fixed keys).
    private struct Entry { var identity: Identity; var window: Range<TimeInterval>; var keySetGeneration: Int? }
    private let capacity: Int
    private let entries = Mutex<[Data: Entry]>([:])

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func identity(for digest: Data, at now: TimeInterval) -> (Identity, keySetGeneration: Int?)? {
        entries.withLock { entries -> (Identity, keySetGeneration: Int?)? in
            guard let entry = entries[digest] else { return nil }
            guard entry.window.contains(now) else {
                entries[digest] = nil
                return nil
            }
            return (entry.identity, entry.keySetGeneration)
        }
    }

    func insert(_ identity: Identity, window: Range<TimeInterval>, keySetGeneration: Int? = nil, for digest: Data,
                at now: TimeInterval) {
        guard window.contains(now) else { return }
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.window.contains(now) }
                // Still full of live tokens: start over rather than track recency on the hot path.
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[digest] = Entry(identity: identity, window: window, keySetGeneration: keySetGeneration)
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
