import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMToolSupport

/// Builds the policy a new TDF is bound to from `--policy` and `--attribute`.
enum PolicyInput {
    /// The policy file (strict JSON: duplicate keys refused) with the extra attributes appended
    /// to `body.dataAttributes`. A file without `uuid` gets a fresh one, as does no file at all.
    static func make(policyPath: String?, attributes: [String]) throws(ToolFailure) -> TDFPolicy {
        var policy: TDFPolicy
        if let policyPath {
            let bytes = try FileInput.read(policyPath, role: "policy", maxBytes: TDFLimits.default.maxPolicyBytes)
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                throw ToolFailure("policy '\(policyPath)' is not valid JSON: \(error.reason)")
            }
            guard case .object(var object) = value else {
                throw ToolFailure("policy '\(policyPath)' is not a JSON object")
            }
            if object["uuid"] == nil {
                object = JSONObject([("uuid", .string(UUID().uuidString.lowercased()))]
                                    + object.members.map { ($0.key, $0.value) })
            }
            do {
                policy = try TDFPolicy(json: .object(object))
            } catch {
                throw ToolFailure.tdf(error, "policy '\(policyPath)'")
            }
        } else {
            policy = TDFPolicy()
        }
        for attribute in attributes {
            policy.body.dataAttributes.append(TDFPolicy.DataAttribute(attribute: attribute))
        }
        return policy
    }
}
