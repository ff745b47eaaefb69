// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMFPSv2
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF

/// The policy a package binds (fps-v2 §5.3, §6): the creator's policy file with a fresh
/// lowercase `uuid`, the `arkavo:media` rules when any were given, the creator's
/// `arkavo:classification`, and `arkavo:components` inserted last exactly as §5.3 prescribes.
public enum PackagePolicy {
    /// Checks the creator's policy and sets its uuid, media rules and classification. Returns
    /// compact JSON in the file's member order, ready for the component insertion.
    ///
    /// - Parameters:
    ///   - classification: the classification given apart from the file (`--classification`);
    ///     refused when the file already has one.
    ///   - requireClassification: fps-v2 (§6.4): a package without a readable
    ///     `arkavo:classification` is unsupported under every device policy, so the writer
    ///     refuses to make one. tdf-hls writes the classification when there is one.
    public static func prepare(_ bytes: some DataProtocol, uuid: String, media: MediaRules?,
                               classification: FPSv2Classification? = nil,
                               requireClassification: Bool = false) throws(PackagerError) -> Data {
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
        if let given = policy[TDFPolicy.classificationKey] {
            guard classification == nil else {
                throw PackagerError(.invalidPolicy,
                                    "the policy already has arkavo:classification; give the classification either in the file or with --classification")
            }
            _ = try Self.classification(given, source: "the policy's arkavo:classification")
        } else if let classification {
            policy[TDFPolicy.classificationKey] = Self.jsonValue(classification)
        } else if requireClassification {
            throw PackagerError(.invalidPolicy, Self.missingClassification)
        }
        policy["uuid"] = .string(uuid)
        return JSONWriter.write(.object(policy), options: [])
    }

    static let missingClassification = """
        fps-v2 needs the creator's content classification (§6.3, §6.4: without a readable one the package is \
        unsupported under every device policy): add "arkavo:classification":{"filter":"passed","flagged":[],"v":1} \
        to the policy, or pass --classification '{"filter":"passed","flagged":[],"v":1}' (flagged: any of "nudity", "violence")
        """

    /// The §6.3 encoding: exactly `filter`, `flagged`, `v`, written with sorted keys.
    public static func jsonValue(_ classification: FPSv2Classification) -> JSONValue {
        .object(JSONObject([("filter", .string("passed")), ("flagged", .array(classification.flagged.map { .string($0) })),
                            ("v", .number(JSONNumber(1)))]))
    }

    /// Parses a classification (`--classification` text or file) by the reader's §6.4 rules, so
    /// that the writer never writes one a reader calls unreadable.
    public static func classification(parsing bytes: some DataProtocol) throws(PackagerError) -> FPSv2Classification {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw PackagerError(.invalidArgument, "the classification is not valid JSON: \(error.reason)")
        }
        do { return try classification(value, source: "the classification") } catch {
            throw PackagerError(.invalidArgument, error.reason)
        }
    }

    /// §6.4: exactly `v` (the integer 1), `filter` ("passed") and `flagged` (no repeats, a subset
    /// of "nudity" and "violence"); anything else is unreadable.
    static func classification(_ value: JSONValue, source: String) throws(PackagerError) -> FPSv2Classification {
        func unreadable(_ why: String) -> PackagerError {
            PackagerError(.invalidPolicy, "\(source) is unreadable by fps-v2 readers (§6.4): \(why)")
        }
        guard case .object(let object) = value else { throw unreadable("it is not an object") }
        guard object.count == 3, object["v"] != nil, object["filter"] != nil, object["flagged"] != nil else {
            throw unreadable("its members must be exactly v, filter and flagged")
        }
        guard case .number(let v)? = object["v"], v.text == "1" else { throw unreadable("v must be the integer 1") }
        guard case .string("passed")? = object["filter"] else {
            throw unreadable("filter must be \"passed\" (a recording that did not pass its filter is not published, §6.4)")
        }
        guard case .array(let items)? = object["flagged"] else { throw unreadable("flagged must be an array") }
        var flagged: [String] = []
        for item in items {
            guard case .string(let name) = item, FPSv2Classification.vocabulary.contains(name) else {
                throw unreadable("flagged entries must be \"nudity\" or \"violence\"")
            }
            guard !flagged.contains(name) else { throw unreadable("flagged repeats \"\(name)\"") }
            flagged.append(name)
        }
        return FPSv2Classification(flagged: flagged)
    }

    /// A fresh canonical lowercase uuid (§6.1), from the system random generator.
    public static func freshUUID() throws(PackagerError) -> String {
        let bytes = try PackageKeys.randomBytes(16)
        var b = bytes
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return CanonicalUUID.text(b) ?? ""
    }
}
