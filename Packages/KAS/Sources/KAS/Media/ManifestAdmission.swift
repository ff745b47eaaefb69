import Crypto
import Encoding
import Foundation
import JSON
import TDF

/// One component of an admitted manifest, with its unwrapped content key.
public struct AdmittedComponent: Sendable, CustomStringConvertible {
    public let id: String
    /// `video` or `audio`.
    public let kind: String
    public let key: SymmetricKey

    public var description: String { "AdmittedComponent(\(id), \(kind))" }
}

/// A manifest that passed every media-service check of fps-v2 §10.7 steps 1 to 3.
public struct AdmittedManifest: Sendable {
    /// SHA-256 (hex) of the manifest bytes exactly as received: the key-cache key.
    public let digest: String
    public let policyUUID: String
    public let dataAttributes: [String]
    public let dissem: [String]
    /// The bound `arkavo:media`, nil when the policy has none.
    public let rules: MediaRules?
    /// `method.iv`, 16 bytes.
    public let iv: Data
    public let components: [AdmittedComponent]

    public func component(_ id: String) -> AdmittedComponent? { components.first { $0.id == id } }
}

/// The checks a key request's manifest passes before any key leaves (fps-v2 §10.7):
///
/// 1. duplicate JSON keys refused in the manifest and in the decoded policy;
/// 2. the closed schema: `arkavo:components` present with the version 2 shape (entries of exactly
///    `id`, `kind`, `keyBinding`; first `video`/`video`, optionally then `audio`/`audio`;
///    `keyBinding` canonical base64 of 32 bytes), a canonical lower-case policy `uuid`, a
///    non-empty `body.dataAttributes`, `method.iv` canonical base64 of 16 bytes, a well-formed
///    `arkavo:media` when present, and exactly one `{type:"wrapped", url, wrappedKey,
///    policyBinding}` key access per component, all naming the same `url` text;
/// 3. that `url` names an accepted KAS after §5.2 normalisation;
/// 4. each key unwraps to exactly 16 bytes; its policy binding is the raw-form HMAC over the
///    policy text as stored; its component's `keyBinding` verifies; no two components share a key.
///
/// Manifests without `arkavo:components` (profile version 1) are refused: this KAS has no
/// version 1 viewers to keep serving.
public struct ManifestAdmission: Sendable {
    public static let maxManifestBytes = 1 << 20
    static let keyAccessMembers: Set<String> = [
        "type", "url", "protocol", "wrappedKey", "policyBinding", "encryptedMetadata", "kid", "sid", "schemaVersion",
    ]

    /// Normalised accepted KAS URLs.
    public let acceptedKAS: Set<String>
    public let unwrapper: any MediaKeyUnwrapper

    /// - Parameter acceptedKASURLs: URLs as configured; one that does not normalise is refused (nil).
    public init?(acceptedKASURLs: [String], unwrapper: any MediaKeyUnwrapper) {
        var accepted = Set<String>()
        for url in acceptedKASURLs {
            guard let normalized = KASURL.normalize(url) else { return nil }
            accepted.insert(normalized)
        }
        self.acceptedKAS = accepted
        self.unwrapper = unwrapper
    }

    public static func digest(of manifest: some DataProtocol) -> String {
        Hex.encode(SHA256.hash(data: manifest))
    }

    public func admit(_ manifest: [UInt8]) throws(ManifestRefusal) -> AdmittedManifest {
        guard manifest.count <= Self.maxManifestBytes else { throw .malformedManifest }
        var limits = JSONLimits.default
        limits.maxBytes = Self.maxManifestBytes
        let root = try Self.parse(manifest, limits: limits, malformed: .malformedManifest)
        guard case .object(let rootObject) = root,
              case .object(let info)? = rootObject["encryptionInformation"],
              case .string(let policyText)? = info["policy"],
              case .array(let keyAccessValues)? = info["keyAccess"],
              case .object(let method)? = info["method"]
        else { throw .malformedManifest }

        // The policy, strictly.
        guard let policyBytes = try? Base64.decode(policyText) else { throw .malformedPolicy }
        let policyJSON = try Self.parse(Array(policyBytes), limits: limits, malformed: .malformedPolicy)
        guard case .object(let policyObject) = policyJSON, let policy = try? TDFPolicy(json: policyJSON) else {
            throw .malformedPolicy
        }
        let declared = try Self.components(policyObject[TDFPolicy.componentsKey])
        guard Self.isCanonicalUUID(policy.uuid) else { throw .policyUUIDMalformed }
        guard !policy.body.dataAttributes.isEmpty,
              policy.body.dataAttributes.allSatisfy({ !$0.attribute.isEmpty }) else { throw .dataAttributesMissing }
        let rules = try policy.media.map { value throws(ManifestRefusal) in try MediaRules(json: value) }
        guard case .string(let ivText)? = method["iv"], let iv = try? Base64.decode(ivText), iv.count == 16 else {
            throw .ivMalformed
        }

        // The key access objects, before any private-key operation.
        guard keyAccessValues.count == declared.count else { throw .keyAccessCount }
        var keyAccess: [KeyAccessObject] = []
        for value in keyAccessValues {
            keyAccess.append(try Self.keyAccess(value))
        }
        guard let url = keyAccess.first?.url, keyAccess.allSatisfy({ $0.url == url }) else { throw .kasURLsDiffer }
        guard let normalized = KASURL.normalize(url), acceptedKAS.contains(normalized) else { throw .foreignKAS }

        // Unwrap and verify every binding.
        let policyMACInput = Data(policyText.utf8)
        var components: [AdmittedComponent] = []
        for (index, object) in keyAccess.enumerated() {
            let key: SymmetricKey
            do {
                key = try unwrapper.unwrap(object)
            } catch {
                throw .unwrapFailed
            }
            guard key.byteCount == 16 else { throw .keyLength }
            guard object.policyBinding.alg == "HS256",
                  let stored = try? Base64.decode(object.policyBinding.hash), stored.count == SHA256.byteCount,
                  ConstantTime.equals(stored, HMAC.sha256(policyMACInput, key: key))
            else { throw .policyBinding }
            let component = declared[index]
            guard TDFBinding.isValidKeyBinding(component.keyBinding, componentID: component.id, key: key) else {
                throw .keyBinding
            }
            components.append(AdmittedComponent(id: component.id, kind: component.kind, key: key))
        }
        for i in components.indices {
            for j in components.indices where j > i && components[i].key == components[j].key {
                throw .sharedKey
            }
        }
        return AdmittedManifest(digest: Self.digest(of: manifest), policyUUID: policy.uuid,
                                dataAttributes: policy.body.dataAttributes.map(\.attribute), dissem: policy.body.dissem,
                                rules: rules, iv: iv, components: components)
    }

    private static func parse(_ bytes: [UInt8], limits: JSONLimits, malformed: ManifestRefusal) throws(ManifestRefusal) -> JSONValue {
        do {
            return try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw error.code == .duplicateKey ? .duplicateKey : malformed
        }
    }

    /// The version 2 component list (fps-v2 §5.3).
    static func components(_ value: JSONValue?) throws(ManifestRefusal) -> [TDFPolicy.Component] {
        guard let value else { throw .componentsMissing }
        guard case .array(let items) = value, (1...2).contains(items.count) else { throw .componentsMalformed }
        let expected = ["video", "audio"]
        var result: [TDFPolicy.Component] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item, object.count == 3,
                  case .string(let id)? = object["id"], case .string(let kind)? = object["kind"],
                  case .string(let binding)? = object["keyBinding"],
                  id == expected[index], kind == expected[index],
                  let decoded = try? Base64.decode(binding), decoded.count == SHA256.byteCount
            else { throw .componentsMalformed }
            result.append(TDFPolicy.Component(id: id, kind: kind, keyBinding: binding))
        }
        return result
    }

    static func keyAccess(_ value: JSONValue) throws(ManifestRefusal) -> KeyAccessObject {
        guard case .object(let object) = value, object.keys.allSatisfy(keyAccessMembers.contains),
              case .string("wrapped")? = object["type"],
              case .string(let url)? = object["url"],
              case .string(let wrappedKey)? = object["wrappedKey"],
              let bindingValue = object["policyBinding"]
        else { throw .keyAccessMalformed }
        let binding: KeyAccessObject.PolicyBinding
        switch bindingValue {
        case .string(let hash):
            binding = .string(hash)
        case .object(let fields):
            guard fields.count == 2, case .string(let alg)? = fields["alg"], case .string(let hash)? = fields["hash"] else {
                throw .keyAccessMalformed
            }
            binding = .object(alg: alg, hash: hash)
        default:
            throw .keyAccessMalformed
        }
        var kid: String?
        if let value = object["kid"] {
            guard case .string(let text) = value else { throw .keyAccessMalformed }
            kid = text
        }
        for member in ["protocol", "encryptedMetadata", "sid", "schemaVersion"] {
            if let value = object[member], !(value.string != nil || value.isNull) { throw .keyAccessMalformed }
        }
        return KeyAccessObject(type: .wrapped, url: url, wrappedKey: wrappedKey, policyBinding: binding, kid: kid)
    }

    /// Canonical lower-case 8-4-4-4-12 (fps-v2 §6.1).
    public static func isCanonicalUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }
}
