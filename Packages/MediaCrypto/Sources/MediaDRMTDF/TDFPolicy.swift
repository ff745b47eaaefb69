// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// The TDF policy: what `encryptionInformation.policy` holds, base64-encoded.
///
/// Core members are typed (`uuid`, `body.dataAttributes[].attribute`, `body.dissem`); the
/// Arkavo extension members are kept (`arkavo:components` as the shared `MediaComponentList`,
/// `arkavo:classification` and `arkavo:media` as JSON for their own checkers), and any other
/// member is carried in `additionalMembers` so a policy written back loses nothing. Reading tolerates what other
/// writers emit: `null` for empty arrays and extra members of attribute objects.
public struct TDFPolicy: Sendable, Equatable {
    public static let componentsKey = MediaComponentList.policyKey
    public static let classificationKey = "arkavo:classification"
    public static let mediaKey = MediaRules.policyKey

    public var uuid: String
    public var body: Body
    /// `arkavo:components` (fps-v2 §5.3), nil when absent. Any well-formed list is kept here: a
    /// generic TDF is not a media package, so the version 2 shape is checked only by media
    /// admission (`MediaComponentList.init(version2:)`).
    public var components: MediaComponentList?
    /// `arkavo:classification` (fps-v2 §6.3), nil when absent.
    public var classification: JSONValue?
    /// `arkavo:media` (rental windows, concurrency, regions, HDCP, security level), nil when absent.
    public var media: JSONValue?
    /// Other top-level members, in their original order.
    public var additionalMembers: JSONObject

    public struct Body: Sendable, Equatable {
        public var dataAttributes: [DataAttribute]
        public var dissem: [String]
        /// Other members of `body`, in their original order.
        public var additionalMembers: JSONObject

        public init(dataAttributes: [DataAttribute] = [], dissem: [String] = [], additionalMembers: JSONObject = JSONObject([])) {
            self.dataAttributes = dataAttributes
            self.dissem = dissem
            self.additionalMembers = additionalMembers
        }
    }

    public struct DataAttribute: Sendable, Equatable {
        /// The attribute value FQN, e.g. `https://example.com/attr/tier/value/gold`.
        public var attribute: String
        public init(attribute: String) { self.attribute = attribute }
    }

    /// A policy with a fresh lowercase UUID unless one is given.
    public init(uuid: String = UUID().uuidString.lowercased(), dataAttributes: [String] = [], dissem: [String] = [],
                components: MediaComponentList? = nil, classification: JSONValue? = nil, media: JSONValue? = nil) {
        self.uuid = uuid
        self.body = Body(dataAttributes: dataAttributes.map(DataAttribute.init(attribute:)), dissem: dissem)
        self.components = components
        self.classification = classification
        self.media = media
        self.additionalMembers = JSONObject([])
    }
}

// MARK: - Reading

extension TDFPolicy {
    /// Decodes `encryptionInformation.policy`: canonical standard base64 of policy JSON.
    public init(base64 text: String, limits: TDFLimits = .default) throws(TDFError) {
        guard text.utf8.count <= (limits.maxPolicyBytes / 3 + 1) * 4 else {
            throw TDFError(.limitExceeded, "policy is larger than maxPolicyBytes")
        }
        let bytes: Data
        do {
            bytes = try Base64.decode(text)
        } catch {
            throw TDFError(.malformedPolicy, "policy is not canonical standard base64")
        }
        try self.init(parsing: bytes, limits: limits)
    }

    /// Parses policy JSON with the strict parser (duplicate keys refused at any depth).
    public init(parsing bytes: some DataProtocol, limits: TDFLimits = .default) throws(TDFError) {
        guard bytes.count <= limits.maxPolicyBytes else {
            throw TDFError(.limitExceeded, "policy is larger than maxPolicyBytes")
        }
        var jsonLimits = JSONLimits.default
        jsonLimits.maxBytes = limits.maxPolicyBytes
        try self.init(json: parseJSON(Array(bytes), limits: jsonLimits, code: .malformedPolicy, name: "policy"))
    }

    public init(json: JSONValue) throws(TDFError) {
        let root = try JSONFields.root(json, name: "policy", code: .malformedPolicy)
        self.uuid = try root.string("uuid")
        let bodyFields = try root.object("body")
        var attributes: [DataAttribute] = []
        for (index, item) in try bodyFields.optionalArray("dataAttributes").enumerated() {
            let fields = try bodyFields.element(item, of: "dataAttributes", at: index)
            attributes.append(DataAttribute(attribute: try fields.string("attribute")))
        }
        var dissem: [String] = []
        for (index, item) in try bodyFields.optionalArray("dissem").enumerated() {
            guard case .string(let entity) = item else {
                throw TDFError(.malformedPolicy, "policy.body.dissem[\(index)] is not a string")
            }
            dissem.append(entity)
        }
        self.body = Body(dataAttributes: attributes, dissem: dissem,
                         additionalMembers: Self.others(of: bodyFields.object, excluding: ["dataAttributes", "dissem"]))

        if let list = root.object[Self.componentsKey] {
            do throws(MediaComponentListError) {
                self.components = try MediaComponentList(json: list)
            } catch {
                throw TDFError(.malformedPolicy, "policy.\(error.reason)")
            }
        } else {
            self.components = nil
        }
        self.classification = root.object[Self.classificationKey]
        self.media = root.object[Self.mediaKey]
        self.additionalMembers = Self.others(
            of: root.object, excluding: ["uuid", "body", Self.componentsKey, Self.classificationKey, Self.mediaKey])
    }

    private static func others(of object: JSONObject, excluding known: Set<String>) -> JSONObject {
        var members: [(String, JSONValue)] = []
        for member in object where !known.contains(member.key) {
            members.append((member.key, member.value))
        }
        return JSONObject(members)
    }
}

// MARK: - Writing

extension TDFPolicy {
    public var jsonValue: JSONValue {
        var bodyMembers: [(String, JSONValue)] = [
            ("dataAttributes", .array(body.dataAttributes.map { .object(JSONObject([("attribute", .string($0.attribute))])) })),
            ("dissem", .array(body.dissem.map { .string($0) })),
        ]
        for member in body.additionalMembers { bodyMembers.append((member.key, member.value)) }
        var members: [(String, JSONValue)] = []
        if let components { members.append((Self.componentsKey, components.jsonValue)) }
        if let classification { members.append((Self.classificationKey, classification)) }
        if let media { members.append((Self.mediaKey, media)) }
        members.append(("body", .object(JSONObject(bodyMembers))))
        members.append(("uuid", .string(uuid)))
        for member in additionalMembers { members.append((member.key, member.value)) }
        return .object(JSONObject(members))
    }

    /// Compact JSON with sorted keys (deterministic; matches the fps-v2 Appendix A "before" form).
    public func jsonData() -> Data {
        JSONWriter.write(jsonValue, options: [.sortedKeys])
    }

    /// The text stored in `encryptionInformation.policy`.
    public var base64: String { Base64.encode(jsonData()) }
}
