import Foundation
import MediaDRMTDF

/// Who asks for a rewrap, as the bearer token says.
package struct OpenTDFEntity: Sendable, Equatable {
    /// `sub`: the viewer.
    public var subject: String?
    /// `entitlements`: attribute value FQNs the viewer holds.
    public var entitlements: [String]

    public init(subject: String?, entitlements: [String]) {
        self.subject = subject
        self.entitlements = entitlements
    }
}

/// The entitlement rule of the rewrap routes (docs/protocol.md):
/// - `body.dissem` non-empty: the token's `sub` must be one of its entries (exact match);
/// - every `body.dataAttributes[].attribute` must be in the token's `entitlements` (attribute
///   value FQNs compare without regard to letter case, as OpenTDF FQNs are case-insensitive).
/// A policy with neither is open to any authenticated viewer.
package enum OpenTDFEntitlementRule {
    public enum Decision: Sendable, Equatable {
        case permit
        /// A fixed reason (names which rule refused, never the values).
        case deny(String)
    }

    public static func decide(policy: TDFPolicy, entity: OpenTDFEntity) -> Decision {
        if !policy.body.dissem.isEmpty {
            guard let subject = entity.subject, policy.body.dissem.contains(subject) else {
                return .deny("forbidden: the viewer is not in the policy's dissemination list")
            }
        }
        let held = Set(entity.entitlements.map { $0.lowercased() })
        for attribute in policy.body.dataAttributes where !held.contains(attribute.attribute.lowercased()) {
            return .deny("forbidden: the viewer is not entitled to every data attribute of the policy")
        }
        return .permit
    }
}
