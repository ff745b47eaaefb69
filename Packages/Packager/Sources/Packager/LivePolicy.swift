import Foundation
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF

/// The policies of a live stream: the creator's policy prepared as for VOD tdf-hls (one uuid
/// for the whole stream), with the key period bound into `arkavo:media` (`livePeriod`,
/// `livePeriodStart`, `livePeriodSeconds`). Media rules the policy file already has are kept and the period added to
/// them, so the one `arkavo:media` member carries both.
struct LivePolicy {
    let uuid: String
    private let policyJSON: Data
    private let rules: MediaRules
    private let periodSeconds: Int64
    private var made: [Int64: TDFPolicy] = [:]

    /// `periodSeconds` is the stream's `--key-period`, written into every segment's policy so the
    /// KAS reads the period's end from the segment itself.
    init(policyJSON: Data, uuid: String, periodSeconds: Int64) throws(PackagerError) {
        let value: JSONValue
        do { value = try JSONParser.parse(policyJSON) } catch {
            throw PackagerError(.invalidPolicy, "the policy is not valid JSON: \(error.reason)")
        }
        guard case .object(var policy) = value else { throw PackagerError(.invalidPolicy, "the policy is not a JSON object") }
        var rules = MediaRules()
        if let given = policy[MediaRules.policyKey] {
            do { rules = try MediaRules(json: given) } catch { throw PackagerError(.invalidPolicy, error.reason) }
            guard rules.livePeriod == nil, rules.livePeriodSeconds == nil else {
                throw PackagerError(.invalidPolicy, "the policy's arkavo:media already has livePeriod; the live packager writes the period itself")
            }
            policy[MediaRules.policyKey] = nil
        }
        self.policyJSON = JSONWriter.write(.object(policy), options: [])
        self.rules = rules
        self.uuid = uuid
        self.periodSeconds = periodSeconds
        // The policy file is checked once up front; that trial policy (start 0) is not kept, or
        // period 0's segments would carry it instead of their period's real start.
        _ = try self.policy(period: 0, start: 0)
        made = [:]
    }

    /// The policy of the segments of key period `period`, which began at `start` (Unix seconds).
    mutating func policy(period: Int64, start: Int64) throws(PackagerError) -> TDFPolicy {
        if let policy = made[period] { return policy }
        var rules = self.rules
        rules.livePeriod = period
        rules.livePeriodStart = start
        rules.livePeriodSeconds = periodSeconds
        let prepared = try PackagePolicy.prepare(policyJSON, uuid: uuid, media: rules)
        let policy: TDFPolicy
        do { policy = try TDFPolicy(parsing: prepared) } catch {
            throw PackagerError(.invalidPolicy, "the policy is not a usable TDF policy: \(error.reason)")
        }
        // Only the current period is ever needed again.
        made = [period: policy]
        return policy
    }
}
