import Crypto
import Encoding
import Foundation
import JSON

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

    /// Reads `sub`, `entitlements` and `rentals` from a verified token's claims. Malformed
    /// entitlement or rental entries are dropped (they grant nothing), never guessed at.
    public init(identity: AuthenticatedIdentity) {
        var entitlements: [String] = []
        if case .array(let items)? = identity.claims["entitlements"] {
            for case .string(let fqn) in items { entitlements.append(fqn) }
        }
        var rentals: [String: Int64] = [:]
        if case .object(let object)? = identity.claims["rentals"] {
            for (uuid, value) in object {
                if case .number(let number) = value, let seconds = number.int64 { rentals[uuid] = seconds }
            }
        }
        self.init(subject: identity.subject, entitlements: entitlements, rentals: rentals)
    }

    /// What the store keys sessions and records by: SHA-256 of the subject, hex. The subject
    /// itself never reaches the database.
    public var storeKey: String { Hex.encode(SHA256.hash(data: Data(subject.utf8))) }

    /// What logs and the audit trail carry: the first 16 hex digits of SHA-256 of the subject
    /// (the same value as the key ring branch's `Identity.viewerHash`).
    public var viewerHash: String { String(storeKey.prefix(16)) }

    public func rentalPurchaseTime(policyUUID: String) -> Int64? { rentals[policyUUID.lowercased()] }

    public var description: String { "MediaViewer(\(viewerHash))" }
}
