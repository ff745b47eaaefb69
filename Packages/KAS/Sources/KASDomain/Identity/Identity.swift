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
    public var viewerHash: String { Self.viewerHash(subject: subject) }

    /// The first 16 hex digits (64 bits) of SHA-256 of the subject: stable per viewer, enough to
    /// correlate log lines, and not the subject itself.
    public static func viewerHash(subject: String) -> String {
        Hex.encode(SHA256Digest.hash(data: Data(subject.utf8)).prefix(8))
    }

    /// What stores key this viewer's records by (media sessions, first plays, rate buckets):
    /// SHA-256 of the subject, hex. The subject itself never reaches a database.
    public var storeKey: String { Self.storeKey(subject: subject) }

    public static func storeKey(subject: String) -> String { Hex.encode(SHA256Digest.hash(data: Data(subject.utf8))) }

    /// The purchase time of the rental of the policy with this uuid (any letter case), if any.
    public func rentalPurchaseTime(policyUUID: String) -> Int64? {
        UUID(uuidString: policyUUID).flatMap { rentals[$0] }
    }

    /// Never the subject or claims: an identity may be logged by accident.
    public var description: String { "Identity(viewer \(viewerHash))" }
}
