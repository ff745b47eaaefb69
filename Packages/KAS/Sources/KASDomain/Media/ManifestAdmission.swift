// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMMedia

/// One component of an admitted manifest, with its unwrapped content key.
package struct AdmittedComponent: Sendable, CustomStringConvertible {
    public let id: String
    public let kind: MediaComponentKind
    public let key: SecretKey

    public var description: String { "AdmittedComponent(\(id), \(kind))" }
}

/// A manifest that passed every media-service check of fps-v2 §10.7 steps 1 to 3.
package struct AdmittedManifest: Sendable {
    /// SHA-256 (hex) of the manifest bytes exactly as received: the key-cache key.
    public let digest: String
    /// What the media rules read (`MediaAuthorizer`).
    let policy: MediaAssetPolicy
    /// `method.iv`, 16 bytes.
    public let iv: Data
    public let components: [AdmittedComponent]

    public func component(_ id: String) -> AdmittedComponent? { components.first { $0.id == id } }

    public var policyUUID: String { policy.policyUUID }
    public var dataAttributes: [String] { policy.dataAttributes }
    public var dissem: [String] { policy.dissem }
    /// The bound `arkavo:media`, nil when the policy has none.
    public var rules: MediaRules? { policy.rules }
}

/// The checks a key request's manifest passes before any key leaves (fps-v2 §10.7):
///
/// 1. duplicate JSON keys refused in the manifest and in the decoded policy;
/// 2. the closed manifest schema exactly as fps-v2 readers apply it (`FPSv2Manifest`: known
///    members only, required ones present, right JSON types, no `null`); then `arkavo:components`
///    with the version 2 shape (entries of exactly `id`, `kind`, `keyBinding`; first
///    `video`/`video`, optionally then `audio`/`audio`; or a cmaf package's video components per
///    resolution class, `MediaComponentList(servedKeys:)`; `keyBinding` canonical base64 of 32
///    bytes), a canonical lower-case policy `uuid`, a non-empty `body.dataAttributes`,
///    `method.iv` canonical base64 of 16 bytes, a well-formed `arkavo:media` when present, and
///    exactly one `wrapped` key access per component, all naming the same `url` text;
/// 3. that `url` names an accepted KAS after the §5.2 normalisation (`KeyServiceURL`);
/// 4. each key unwraps to exactly 16 bytes; its policy binding is the raw-form HMAC over the
///    policy text as stored; its component's `keyBinding` verifies; no two components share a key.
///
/// Manifests without `arkavo:components` (profile version 1) are refused: this KAS has no
/// version 1 viewers to keep serving.
package struct ManifestAdmission: Sendable {
    public static let maxManifestBytes = FPSv2Limits.default.maxManifestBytes
    /// The JSON limits `FPSv2Manifest(parsing:)` reads with, so the KAS and the readers refuse
    /// the same texts.
    static let jsonLimits = JSONLimits(maxBytes: maxManifestBytes, maxDepth: 32)

    /// Accepted KAS URLs, normalised (`KeyServiceURL.normalize`).
    public let acceptedKAS: Set<String>
    public let unwrapper: any MediaKeyUnwrapper

    /// - Parameter acceptedKASURLs: URLs as configured; nil when one of them is not a key service
    ///   URL fps-v2 readers accept (https origin, or http to a loopback host).
    public init?(acceptedKASURLs: [String], unwrapper: any MediaKeyUnwrapper) {
        var accepted = Set<String>()
        for url in acceptedKASURLs {
            guard let normalized = KeyServiceURL.normalize(url) else { return nil }
            accepted.insert(normalized)
        }
        self.acceptedKAS = accepted
        self.unwrapper = unwrapper
    }

    public static func digest(of manifest: some DataProtocol) -> String {
        Hex.encode(SHA256Digest.hash(data: manifest))
    }

    public func admit(_ manifest: [UInt8]) throws(ManifestRefusal) -> AdmittedManifest {
        guard manifest.count <= Self.maxManifestBytes else { throw .malformedManifest }
        let root = try Self.parse(manifest, malformed: .malformedManifest)
        guard let parsed = try? FPSv2Manifest(json: root) else { throw .malformedManifest }

        // The policy, strictly.
        guard let policyBytes = try? Base64.decode(parsed.policy) else { throw .malformedPolicy }
        let policyJSON = try Self.parse(Array(policyBytes), malformed: .malformedPolicy)
        guard case .object(let policyObject) = policyJSON, let policy = try? TDFPolicy(json: policyJSON) else {
            throw .malformedPolicy
        }
        let declared = try Self.components(policyObject[MediaComponentList.policyKey])
        guard CanonicalUUID.isCanonical(policy.uuid) else { throw .policyUUIDMalformed }
        guard !policy.body.dataAttributes.isEmpty,
              policy.body.dataAttributes.allSatisfy({ !$0.attribute.isEmpty }) else { throw .dataAttributesMissing }
        let rules = try policy.media.map { value throws(ManifestRefusal) in try Self.rules(value) }
        guard let iv = try? Base64.decode(parsed.method.iv), iv.count == 16 else { throw .ivMalformed }

        // The key access objects, before any private-key operation.
        guard parsed.keyAccess.count == declared.count else { throw .keyAccessCount }
        guard parsed.keyAccess.allSatisfy({ $0.type == KeyAccessObject.KeyType.wrapped.rawValue }) else {
            throw .keyAccessMalformed
        }
        guard let url = parsed.keyAccess.first?.url, parsed.keyAccess.allSatisfy({ $0.url == url }) else {
            throw .kasURLsDiffer
        }
        guard let normalized = KeyServiceURL.normalize(url), acceptedKAS.contains(normalized) else { throw .foreignKAS }

        // Unwrap and verify every binding.
        let policyMACInput = Data(parsed.policy.utf8)
        var components: [AdmittedComponent] = []
        for (index, access) in parsed.keyAccess.enumerated() {
            let key: SecretKey
            do {
                key = try unwrapper.unwrap(access.keyAccessObject)
            } catch {
                throw .unwrapFailed
            }
            guard key.byteCount == 16 else { throw .keyLength }
            guard access.policyBinding.alg == "HS256",
                  let stored = try? Base64.decode(access.policyBinding.hash), stored.count == SHA256Digest.byteCount,
                  ConstantTime.equals(stored, HMACSHA256.authenticationCode(policyMACInput, key: key))
            else { throw .policyBinding }
            let (component, kind) = declared[index]
            guard TDFBinding.isValidKeyBinding(component.keyBinding, componentID: component.id, key: key) else {
                throw .keyBinding
            }
            components.append(AdmittedComponent(id: component.id, kind: kind, key: key))
        }
        for i in components.indices {
            for j in components.indices where j > i && components[i].key == components[j].key {
                throw .sharedKey
            }
        }
        let assetPolicy = MediaAssetPolicy(policyUUID: policy.uuid, dataAttributes: policy.body.dataAttributes.map(\.attribute),
                                           dissem: policy.body.dissem, rules: rules)
        return AdmittedManifest(digest: Self.digest(of: manifest), policy: assetPolicy, iv: iv, components: components)
    }

    /// Strict JSON with the readers' limits; a duplicate key is its own refusal.
    private static func parse(_ bytes: [UInt8], malformed: ManifestRefusal) throws(ManifestRefusal) -> JSONValue {
        do {
            return try JSONParser.parse(bytes, limits: jsonLimits)
        } catch {
            throw error.code == .duplicateKey ? .duplicateKey : malformed
        }
    }

    /// The version 2 component list (fps-v2 §5.3), or a cmaf package's keyed per resolution
    /// class (`video-sd` … then `audio`), read by the shared `MediaComponentList`.
    static func components(_ value: JSONValue?) throws(ManifestRefusal) -> [(MediaComponentList.Entry, MediaComponentKind)] {
        do throws(MediaComponentListError) {
            let list = try MediaComponentList(servedKeys: value)
            try list.checkKeyBindingForms()
            return Array(zip(list.entries, list.kinds))
        } catch {
            throw error.code == .missing ? .componentsMissing : .componentsMalformed
        }
    }

    /// The bound `arkavo:media`, read by the shared `MediaRules`.
    static func rules(_ value: JSONValue) throws(ManifestRefusal) -> MediaRules {
        do throws(MediaRulesError) {
            return try MediaRules(json: value)
        } catch {
            throw .malformedMediaRules
        }
    }
}
