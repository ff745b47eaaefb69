import Foundation
import MediaDRMJSON
import MediaDRMTDF

/// The `requestBody` of a signed request token: `kas.UnsignedRewrapRequest` in proto3 JSON.
///
/// v2 (bulk): `{clientPublicKey, requests: [{algorithm, policy: {id, body}, keyAccessObjects:
/// [{keyAccessObjectId, keyAccessObject}]}]}`. v1 (legacy, used when `requests` is empty):
/// `{clientPublicKey, keyAccess, policy, algorithm}`, read as one policy `policy-1` with one
/// key access object `kao-0` (the names the OpenTDF platform gives them).
///
/// A body that is not this shape is refused as a whole; a key access object that is
/// well-formed JSON but unusable (no type, no wrapped key, no binding) becomes a per-object
/// failure, so one bad object does not cost the others their keys.
package struct UnsignedRewrapRequest: Sendable {
    public struct Limits: Sendable, Equatable {
        public var maximumPolicies = 32
        public var maximumKeyAccessObjectsPerPolicy = 64
        public var maximumKeyAccessObjects = 256
        public init() {}
        public static let `default` = Limits()
    }

    public struct KeyAccessEntry: Sendable {
        public var id: String
        /// The object, or why it cannot be used (a fixed reason for the per-object error).
        public var keyAccess: Result<KeyAccessObject, OpenTDFError>
    }

    public struct PolicyRequest: Sendable {
        public var algorithm: String
        public var policyID: String
        /// Base64 policy text exactly as received; bindings are verified over these bytes.
        public var policyBody: String
        public var keyAccessObjects: [KeyAccessEntry]
    }

    public var clientPublicKey: String
    public var requests: [PolicyRequest]
    public var isV1: Bool

    public static let v1PolicyID = "policy-1"
    public static let v1KeyAccessObjectID = "kao-0"

    public init(json root: JSONObject, limits: Limits = .default) throws(OpenTDFError) {
        let name = "requestBody"
        self.clientPublicKey = try ProtoJSON.string(root, "clientPublicKey", "client_public_key", in: name)
        let items = try ProtoJSON.array(root, "requests", in: name)
        guard items.count <= limits.maximumPolicies else {
            throw OpenTDFError(.tooLarge, "requestBody.requests has more than \(limits.maximumPolicies) policies")
        }
        if items.isEmpty {
            isV1 = true
            guard let keyAccess = try ProtoJSON.object(root, "keyAccess", "key_access", in: name) else {
                throw OpenTDFError(.malformedRequest, "requestBody has neither requests nor keyAccess")
            }
            requests = [PolicyRequest(
                algorithm: try ProtoJSON.string(root, "algorithm", in: name),
                policyID: Self.v1PolicyID,
                policyBody: try ProtoJSON.string(root, "policy", in: name),
                keyAccessObjects: [KeyAccessEntry(id: Self.v1KeyAccessObjectID, keyAccess: Self.keyAccessObject(keyAccess))])]
            return
        }
        isV1 = false
        var requests: [PolicyRequest] = []
        var policyIDs = Set<String>()
        var total = 0
        for (index, item) in items.enumerated() {
            let path = "requestBody.requests[\(index)]"
            let object = try ProtoJSON.root(item, path)
            guard let policy = try ProtoJSON.object(object, "policy", in: path) else {
                throw OpenTDFError(.malformedRequest, "\(path).policy is missing")
            }
            let policyID = try ProtoJSON.string(policy, "id", in: "\(path).policy")
            guard !policyID.isEmpty else { throw OpenTDFError(.malformedRequest, "\(path).policy.id is empty") }
            guard policyIDs.insert(policyID).inserted else {
                throw OpenTDFError(.malformedRequest, "\(path).policy.id repeats an earlier policy id")
            }
            let entries = try ProtoJSON.array(object, "keyAccessObjects", "key_access_objects", in: path)
            total += entries.count
            guard entries.count <= limits.maximumKeyAccessObjectsPerPolicy, total <= limits.maximumKeyAccessObjects else {
                throw OpenTDFError(.tooLarge, "requestBody has more key access objects than the limit")
            }
            var kaoIDs = Set<String>()
            var objects: [KeyAccessEntry] = []
            for (kaoIndex, entry) in entries.enumerated() {
                let entryPath = "\(path).keyAccessObjects[\(kaoIndex)]"
                let entryObject = try ProtoJSON.root(entry, entryPath)
                let id = try ProtoJSON.string(entryObject, "keyAccessObjectId", "key_access_object_id", in: entryPath)
                guard !id.isEmpty else { throw OpenTDFError(.malformedRequest, "\(entryPath).keyAccessObjectId is empty") }
                guard kaoIDs.insert(id).inserted else {
                    throw OpenTDFError(.malformedRequest, "\(entryPath).keyAccessObjectId repeats an earlier id")
                }
                let keyAccess: Result<KeyAccessObject, OpenTDFError>
                if let object = try ProtoJSON.object(entryObject, "keyAccessObject", "key_access_object", in: entryPath) {
                    keyAccess = Self.keyAccessObject(object)
                } else {
                    keyAccess = .failure(OpenTDFError(.malformedRequest, "key access object is missing"))
                }
                objects.append(KeyAccessEntry(id: id, keyAccess: keyAccess))
            }
            requests.append(PolicyRequest(
                algorithm: try ProtoJSON.string(object, "algorithm", in: path),
                policyID: policyID,
                policyBody: try ProtoJSON.string(policy, "body", in: "\(path).policy"),
                keyAccessObjects: objects))
        }
        self.requests = requests
    }

    /// `kas.KeyAccess` in proto3 JSON (`type`, `url`, `protocol`, `wrappedKey` as base64 bytes,
    /// `policyBinding` as `{alg, hash}` or, from v1 clients, a bare string, `kid`, `sid`,
    /// `ephemeralPublicKey`, `encryptedMetadata`); the manifest members the SDKs add
    /// (`schemaVersion`) are ignored.
    static func keyAccessObject(_ object: JSONObject) -> Result<KeyAccessObject, OpenTDFError> {
        do {
            return .success(try parseKeyAccessObject(object))
        } catch {
            return .failure(error)
        }
    }

    private static func parseKeyAccessObject(_ object: JSONObject) throws(OpenTDFError) -> KeyAccessObject {
        let name = "keyAccessObject"
        let type = try ProtoJSON.string(object, "type", "key_type", in: name)
        guard !type.isEmpty else { throw OpenTDFError(.malformedRequest, "key access object has no type") }
        let wrapped = try ProtoJSON.bytes(object, "wrappedKey", "wrapped_key", in: name)
        guard !wrapped.isEmpty else { throw OpenTDFError(.malformedRequest, "key access object has no wrapped key") }
        let binding: KeyAccessObject.PolicyBinding
        switch try ProtoJSON.value(object, "policyBinding", "policy_binding", in: name) {
        case .string(let hash):
            binding = .string(hash)
        case .object(let inner):
            let alg = try ProtoJSON.string(inner, "alg", "algorithm", in: "\(name).policyBinding")
            let hash = try ProtoJSON.string(inner, "hash", in: "\(name).policyBinding")
            // HS256 is the only binding algorithm; an omitted one means it.
            binding = alg.isEmpty ? .string(hash) : .object(alg: alg, hash: hash)
        case nil:
            throw OpenTDFError(.malformedRequest, "key access object has no policy binding")
        default:
            throw OpenTDFError(.malformedRequest, "keyAccessObject.policyBinding is neither an object nor a string")
        }
        guard !binding.hash.isEmpty else { throw OpenTDFError(.malformedRequest, "key access object has no policy binding") }
        let ephemeral = try ProtoJSON.string(object, "ephemeralPublicKey", "ephemeral_public_key", in: name)
        let kid = try ProtoJSON.string(object, "kid", in: name)
        let sid = try ProtoJSON.string(object, "sid", "split_id", in: name)
        let metadata = try ProtoJSON.string(object, "encryptedMetadata", "encrypted_metadata", in: name)
        return KeyAccessObject(
            type: KeyAccessObject.KeyType(rawValue: type),
            url: try ProtoJSON.string(object, "url", "kas_url", in: name),
            protocol: try ProtoJSON.string(object, "protocol", in: name),
            wrappedKey: ProtoJSON.encodeBytes(wrapped),
            policyBinding: binding,
            kid: kid.isEmpty ? nil : kid,
            sid: sid.isEmpty ? nil : sid,
            encryptedMetadata: metadata.isEmpty ? nil : metadata,
            ephemeralPublicKey: ephemeral.isEmpty ? nil : ephemeral,
            schemaVersion: nil)
    }
}
