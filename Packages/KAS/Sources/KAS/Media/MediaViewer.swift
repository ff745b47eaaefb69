import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON

/// The viewer behind a verified bearer token, as the media service needs it: `sub`, the attribute
/// value FQNs it is entitled to (`entitlements`), and its rentals (`rentals`: policy uuid ->
/// purchase time, Unix seconds).
public struct MediaViewer: Sendable, Equatable, CustomStringConvertible {
    public let subject: String
    public let entitlements: [String]
    /// Keyed by lower-case policy uuid.
    public let rentals: [String: Int64]

    public init(subject: String, entitlements: [String] = [], rentals: [String: Int64] = [:]) {
        self.subject = subject
        self.entitlements = entitlements
        var lowered: [String: Int64] = [:]
        for (uuid, time) in rentals { lowered[uuid.lowercased()] = time }
        self.rentals = lowered
    }

    /// The viewer of a verified token (`Identity` from the bearer-token verifier).
    public init(identity: Identity) {
        var rentals: [String: Int64] = [:]
        for (uuid, time) in identity.rentals { rentals[uuid.uuidString.lowercased()] = time }
        self.init(subject: identity.subject, entitlements: identity.entitlements, rentals: rentals)
    }

    /// The viewer the authentication middleware put in the request context; its claims are read
    /// by `AuthenticatedIdentity.identity`, the same reading the verifier applies.
    public init(identity: AuthenticatedIdentity) {
        self.init(identity: identity.identity)
    }

    /// What the store keys sessions and records by: SHA-256 of the subject, hex. The subject
    /// itself never reaches the database.
    public var storeKey: String { Hex.encode(SHA256.hash(data: Data(subject.utf8))) }

    /// What logs and the audit trail carry: `Identity.viewerHash` (the first 16 hex digits of
    /// SHA-256 of the subject), so audit and request-log lines of one viewer correlate.
    public var viewerHash: String { Identity.viewerHash(subject: subject) }

    public func rentalPurchaseTime(policyUUID: String) -> Int64? { rentals[policyUUID.lowercased()] }

    public var description: String { "MediaViewer(\(viewerHash))" }
}
