import Foundation
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

/// What the offline routes read from a manifest besides the admission's result: its policy's
/// `arkavo:components` key bindings (a licence's `kid`s) and whether it is a tdf-hls segment's
/// (a Standard TDF policy without `arkavo:components`), to say why offline is refused.
enum OfflineManifestFacts {
    /// The policy object of a manifest (`encryptionInformation.policy`, base64 JSON), nil when the
    /// manifest has none that parses.
    static func policy(_ manifest: [UInt8]) -> JSONObject? {
        let limits = ManifestAdmission.jsonLimits
        guard case .object(let root)? = try? JSONParser.parse(manifest, limits: limits),
              case .object(let information)? = root["encryptionInformation"],
              case .string(let text)? = information["policy"], let bytes = try? Base64.decode(text),
              case .object(let policy)? = try? JSONParser.parse(bytes, limits: limits)
        else { return nil }
        return policy
    }

    /// A Standard TDF manifest whose policy has no component list: every tdf-hls segment's.
    static func isPerSegmentPackage(_ manifest: [UInt8]) -> Bool {
        guard let policy = policy(manifest) else { return false }
        return policy[MediaComponentList.policyKey] == nil
    }

    /// Component id -> lower-case hex of its `keyBinding`, for a manifest the admission accepted.
    static func keyIDs(_ manifest: [UInt8]) -> [String: String] {
        guard let policy = policy(manifest), let list = try? MediaComponentList(version2: policy[MediaComponentList.policyKey])
        else { return [:] }
        var ids: [String: String] = [:]
        for entry in list.entries {
            if let binding = try? Base64.decode(entry.keyBinding) { ids[entry.id] = Hex.encode(binding) }
        }
        return ids
    }
}
