import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON

/// The viewer a verified bearer token speaks for (docs/protocol.md "Identity"), made once by
/// `BearerTokenVerifier` from the verified claims and carried in the request context of the routes (`KASRequestContext.identity`): `sub`,
/// the attribute values it is entitled to (`entitlements`), its rentals (`rentals`: policy uuid -> purchase time in Unix
/// seconds), and every claim as received.
public struct Identity: Sendable, Equatable, CustomStringConvertible {
    public let subject: String
    /// The `iss` of the token.
    public let issuer: String
    public let entitlements: [String]
    public let rentals: [UUID: Int64]
    public let claims: JSONObject
    /// When the token expires (its `exp`).
    public let expiresAt: Date?

    public init(subject: String, issuer: String, entitlements: [String] = [], rentals: [UUID: Int64] = [:],
                claims: JSONObject = JSONObject(), expiresAt: Date? = nil) {
        self.subject = subject
        self.issuer = issuer
        self.entitlements = entitlements
        self.rentals = rentals
        self.claims = claims
        self.expiresAt = expiresAt
    }

    /// What logs, metrics and the audit trail carry instead of `sub`.
    public var viewerHash: String { Self.viewerHash(issuer: issuer, subject: subject) }

    /// The first 16 hex digits (64 bits) of the viewer's store key (`storeKey`): stable per
    /// viewer, enough to correlate log lines (and to find the viewer's rows, whose keys start
    /// with it), neither the subject nor the issuer, and different for the same `sub` from two
    /// issuers.
    public static func viewerHash(issuer: String, subject: String) -> String {
        String(storeKey(issuer: issuer, subject: subject).prefix(16))
    }

    /// What stores key this viewer's records by (media sessions, playbacks, first plays, stream
    /// slots, rate buckets, offline licences): the viewer is the issuer and the subject together,
    /// since two trusted issuers may each have an `alice`. The subject itself never reaches a
    /// database.
    public var storeKey: String { Self.storeKey(issuer: issuer, subject: subject) }

    public static func storeKey(issuer: String, subject: String) -> String {
        storeKey(issuer: issuer, subjectKey: subjectKey(subject: subject))
    }

    /// Hex SHA-256 of (the issuer's UTF-8 bytes, 0x00, `subjectKey`'s 64 hex characters). Built
    /// on the subject-only key stores held before viewers were issuer-scoped, so `kas store rekey`
    /// computes it from what is stored, without the subject. Unambiguous: the tail after the last
    /// 0x00 is always the 64-character subject key, whatever bytes the issuer holds.
    package static func storeKey(issuer: String, subjectKey: String) -> String {
        var input = Data(issuer.utf8)
        input.append(0)
        input.append(contentsOf: subjectKey.utf8)
        return Hex.encode(SHA256Digest.hash(data: input))
    }

    /// Hex SHA-256 of the subject alone: the store key before viewers were issuer-scoped, kept as
    /// the input of `storeKey(issuer:subjectKey:)`; no record is keyed by it any more.
    package static func subjectKey(subject: String) -> String { Hex.encode(SHA256Digest.hash(data: Data(subject.utf8))) }

    /// The purchase time of the rental of the policy with this uuid (any letter case), if any.
    public func rentalPurchaseTime(policyUUID: String) -> Int64? {
        UUID(uuidString: policyUUID).flatMap { rentals[$0] }
    }

    /// Never the subject or claims: an identity may be logged by accident.
    public var description: String { "Identity(viewer \(viewerHash))" }
}
