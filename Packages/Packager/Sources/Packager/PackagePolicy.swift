import Foundation
import JSON
import TDF

/// The policy a package binds (fps-v2 §5.3, §6): the creator's policy file with a fresh
/// lowercase `uuid`, the `arkavo:media` rules when any were given, and `arkavo:components`
/// inserted last exactly as §5.3 prescribes.
public enum PackagePolicy {
    /// Checks the creator's policy and sets its uuid and media rules. Returns compact JSON in the
    /// file's member order, ready for the component insertion.
    public static func prepare(_ bytes: some DataProtocol, uuid: String, media: MediaPolicy?) throws(PackagerError) -> Data {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw PackagerError(.invalidPolicy, "the policy is not valid JSON: \(error.reason)")
        }
        guard case .object(var policy) = value else { throw PackagerError(.invalidPolicy, "the policy is not a JSON object") }
        guard policy[TDFPolicy.componentsKey] == nil else {
            throw PackagerError(.invalidPolicy, "the policy already has arkavo:components; the packager writes that list itself")
        }
        guard case .object(let body)? = policy["body"] else {
            throw PackagerError(.invalidPolicy, "the policy has no body object; fps-v2 needs body.dataAttributes")
        }
        guard case .array(let attributes)? = body["dataAttributes"], !attributes.isEmpty else {
            throw PackagerError(.invalidPolicy, "the policy has no body.dataAttributes; fps-v2 refuses a policy without data attributes")
        }
        for item in attributes {
            guard case .object(let attribute) = item, case .string(let fqn)? = attribute["attribute"], !fqn.isEmpty else {
                throw PackagerError(.invalidPolicy, "every body.dataAttributes element must be {\"attribute\": \"<FQN>\"}")
            }
        }
        if let dissem = body["dissem"] {
            guard case .array(let list) = dissem, list.allSatisfy({ $0.string != nil }) else {
                throw PackagerError(.invalidPolicy, "body.dissem must be an array of strings")
            }
        }
        if let media, !media.isEmpty {
            guard policy[TDFPolicy.mediaKey] == nil else {
                throw PackagerError(.invalidPolicy, "the policy already has arkavo:media; give the rules either in the file or as flags")
            }
            policy[TDFPolicy.mediaKey] = media.jsonValue
        }
        policy["uuid"] = .string(uuid)
        return JSONWriter.write(.object(policy), options: [])
    }

    /// A fresh canonical lowercase uuid (§6.1), from the system random generator.
    public static func freshUUID() throws(PackagerError) -> String {
        let bytes = try PackageKeys.randomBytes(16)
        var b = bytes
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = b.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
