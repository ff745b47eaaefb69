import Foundation
import MediaDRMJSON
import MediaDRMTDF

/// `manifest.json` of an fps-v2 package (draft-arkavo-tdf-fairplay-01 §5), read and written.
///
/// The schema is closed. The profile names the members it uses (`encryptionInformation.keyAccess`
/// with `{type, url, wrappedKey, policyBinding}`, `method.iv`, `policy`) and the informational
/// ones (`encryptedMetadata`, `meta`, `method.algorithm`); this model admits exactly those plus
/// the OpenTDF members every writer of the profile emits (`encryptionInformation.type`,
/// `keyAccess[].protocol`, `kid`, `schemaVersion`, `method.isStreamable`, an informational
/// `integrityInformation`, an informational `payload`, a top-level `schemaVersion`). Any other
/// member, a missing required member, a member of the wrong JSON type or a JSON `null` is refused,
/// as is a duplicate key at any depth (§5.1 #1). Values are checked by admission, not here: this
/// type reads what is there so each admission check can name its own failure.
///
/// Writing is canonical: compact UTF-8 JSON with sorted keys and `/` unescaped (§10.2 writes its
/// bodies with sorted keys; ArkavoMediaKit's manifest encoder sorts keys too), so a model written
/// and read back is unchanged and equal models give equal bytes.
public struct FPSv2Manifest: Sendable, Equatable {
    /// One wrapped content key, in the order of `arkavo:components` (§5.2 #1).
    public struct KeyAccess: Sendable, Equatable {
        /// "wrapped" in a valid package (§5.2 #2).
        public var type: String
        /// The key service; §5.2 #2 fixes it after normalization.
        public var url: String
        /// Standard base64 of the RSA-OAEP wrapped 16-byte content key.
        public var wrappedKey: String
        /// `{alg:"HS256", hash}` or a bare string (§5.2 #3).
        public var policyBinding: KeyAccessObject.PolicyBinding
        /// "kas" as OpenTDF writes it; absent in some writers.
        public var `protocol`: String?
        /// The KAS key id the key is wrapped to.
        public var kid: String?
        /// Informational (§5.1 #2); no binding covers it.
        public var encryptedMetadata: String?
        public var schemaVersion: String?

        public init(type: String = "wrapped", url: String, wrappedKey: String, policyBinding: KeyAccessObject.PolicyBinding,
                    protocol: String? = "kas", kid: String? = nil, encryptedMetadata: String? = nil, schemaVersion: String? = nil) {
            self.type = type
            self.url = url
            self.wrappedKey = wrappedKey
            self.policyBinding = policyBinding
            self.protocol = `protocol`
            self.kid = kid
            self.encryptedMetadata = encryptedMetadata
            self.schemaVersion = schemaVersion
        }

        /// The same key access as the TDF module's type, for a key service that unwraps it.
        public var keyAccessObject: KeyAccessObject {
            KeyAccessObject(type: KeyAccessObject.KeyType(rawValue: type), url: url, protocol: self.protocol ?? "kas",
                            wrappedKey: wrappedKey, policyBinding: policyBinding, kid: kid,
                            encryptedMetadata: encryptedMetadata, schemaVersion: schemaVersion)
        }
    }

    public struct Method: Sendable, Equatable {
        /// Informational (§5.1 #2).
        public var algorithm: String
        /// Standard base64 of the 16-byte content IV (§5.4).
        public var iv: String
        public var isStreamable: Bool?

        public init(algorithm: String = "AES-128-CBC", iv: String, isStreamable: Bool? = true) {
            self.algorithm = algorithm
            self.iv = iv
            self.isStreamable = isStreamable
        }
    }

    /// `encryptionInformation.type`; "split" as OpenTDF writes it.
    public var encryptionType: String
    public var keyAccess: [KeyAccess]
    public var method: Method
    /// Standard base64 of the policy JSON exactly as stored; every binding covers this text.
    public var policy: String
    /// Informational: an fps-v2 package has no TDF payload for it to protect.
    public var integrityInformation: JSONObject?
    /// Informational: an fps-v2 package has no `0.payload`.
    public var payload: JSONObject?
    /// Informational (§5.1 #2, §9.2): never identity, classification or profile.
    public var meta: JSONValue?
    public var schemaVersion: String?

    public init(keyAccess: [KeyAccess], method: Method, policy: String, encryptionType: String = "split",
                integrityInformation: JSONObject? = nil, payload: JSONObject? = nil, meta: JSONValue? = nil,
                schemaVersion: String? = nil) {
        self.encryptionType = encryptionType
        self.keyAccess = keyAccess
        self.method = method
        self.policy = policy
        self.integrityInformation = integrityInformation
        self.payload = payload
        self.meta = meta
        self.schemaVersion = schemaVersion
    }
}

// MARK: - Reading

extension FPSv2Manifest {
    static let rootMembers: Set<String> = ["encryptionInformation", "payload", "meta", "schemaVersion"]
    static let encryptionMembers: Set<String> = ["type", "keyAccess", "method", "policy", "integrityInformation"]
    static let methodMembers: Set<String> = ["algorithm", "iv", "isStreamable"]
    static let keyAccessMembers: Set<String> = ["type", "url", "wrappedKey", "policyBinding", "protocol", "kid",
                                                "encryptedMetadata", "schemaVersion"]
    static let bindingMembers: Set<String> = ["alg", "hash"]
    static let payloadMembers: [String: String] = ["type": "string", "url": "string", "protocol": "string",
                                                   "mimeType": "string", "isEncrypted": "boolean"]

    /// Parses `manifest.json` with the strict JSON parser and the closed schema. JSON failures
    /// (including duplicate keys) are `.malformedManifest` with `check == .manifestJSON`; schema
    /// failures with `check == .manifestSchema`.
    public init(parsing bytes: some DataProtocol, limits: FPSv2Limits = .default) throws(FPSv2Error) {
        guard bytes.count <= limits.maxManifestBytes else {
            throw FPSv2Error(.limitExceeded, "manifest.json is larger than maxManifestBytes", check: .metadataSizes)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(bytes), limits: JSONLimits(maxBytes: limits.maxManifestBytes, maxDepth: 32))
        } catch {
            throw FPSv2Error(.malformedManifest, "manifest.json is not valid JSON: \(error.reason)", check: .manifestJSON)
        }
        try self.init(json: value)
    }

    /// Reads an already parsed manifest under the closed schema.
    public init(json: JSONValue) throws(FPSv2Error) {
        let root = try Schema.object(json, "manifest")
        try Schema.only(root, Self.rootMembers, "manifest")
        let info = try Schema.object(Schema.required(root, "encryptionInformation", "manifest"), "manifest.encryptionInformation")
        try Schema.only(info, Self.encryptionMembers, "manifest.encryptionInformation")
        encryptionType = try Schema.string(info, "type", "manifest.encryptionInformation")
        policy = try Schema.string(info, "policy", "manifest.encryptionInformation")

        let method = try Schema.object(Schema.required(info, "method", "manifest.encryptionInformation"),
                                       "manifest.encryptionInformation.method")
        try Schema.only(method, Self.methodMembers, "manifest.encryptionInformation.method")
        self.method = Method(algorithm: try Schema.string(method, "algorithm", "manifest.encryptionInformation.method"),
                             iv: try Schema.string(method, "iv", "manifest.encryptionInformation.method"),
                             isStreamable: try Schema.optionalBool(method, "isStreamable", "manifest.encryptionInformation.method"))

        guard case .array(let items)? = info["keyAccess"] else {
            throw Schema.fail("manifest.encryptionInformation.keyAccess must be an array")
        }
        var keyAccess: [KeyAccess] = []
        for (index, item) in items.enumerated() {
            let path = "manifest.encryptionInformation.keyAccess[\(index)]"
            let object = try Schema.object(item, path)
            try Schema.only(object, Self.keyAccessMembers, path)
            let binding: KeyAccessObject.PolicyBinding
            switch object["policyBinding"] {
            case .string(let hash)?:
                binding = .string(hash)
            case .object(let inner)?:
                try Schema.only(inner, Self.bindingMembers, "\(path).policyBinding")
                binding = .object(alg: try Schema.string(inner, "alg", "\(path).policyBinding"),
                                  hash: try Schema.string(inner, "hash", "\(path).policyBinding"))
            case nil:
                throw Schema.fail("\(path).policyBinding is missing")
            default:
                throw Schema.fail("\(path).policyBinding must be an object or a string")
            }
            keyAccess.append(KeyAccess(type: try Schema.string(object, "type", path), url: try Schema.string(object, "url", path),
                                       wrappedKey: try Schema.string(object, "wrappedKey", path), policyBinding: binding,
                                       protocol: try Schema.optionalString(object, "protocol", path),
                                       kid: try Schema.optionalString(object, "kid", path),
                                       encryptedMetadata: try Schema.optionalString(object, "encryptedMetadata", path),
                                       schemaVersion: try Schema.optionalString(object, "schemaVersion", path)))
        }
        self.keyAccess = keyAccess

        if let value = info["integrityInformation"] {
            integrityInformation = try Schema.object(value, "manifest.encryptionInformation.integrityInformation")
        } else {
            integrityInformation = nil
        }
        if let value = root["payload"] {
            let object = try Schema.object(value, "manifest.payload")
            for (key, member) in object {
                guard let kind = Self.payloadMembers[key] else {
                    throw Schema.fail("manifest.payload has a member the schema does not allow")
                }
                let matches: Bool
                switch member {
                case .string: matches = kind == "string"
                case .bool: matches = kind == "boolean"
                default: matches = false
                }
                guard matches else { throw Schema.fail("manifest.payload.\(key) must be a \(kind)") }
            }
            payload = object
        } else {
            payload = nil
        }
        if let value = root["meta"] {
            if case .null = value { throw Schema.fail("manifest.meta must not be null") }
            meta = value
        } else {
            meta = nil
        }
        schemaVersion = try Schema.optionalString(root, "schemaVersion", "manifest")
    }
}

/// Closed-schema reads: every failure is `.malformedManifest` at `.manifestSchema` and names the
/// member's path, never its value.
enum Schema {
    static func fail(_ reason: String) -> FPSv2Error {
        FPSv2Error(.malformedManifest, reason, check: .manifestSchema)
    }

    static func object(_ value: JSONValue, _ path: String) throws(FPSv2Error) -> JSONObject {
        guard case .object(let object) = value else { throw fail("\(path) must be an object") }
        return object
    }

    static func only(_ object: JSONObject, _ allowed: Set<String>, _ path: String) throws(FPSv2Error) {
        for (key, _) in object where !allowed.contains(key) {
            throw fail("\(path) has a member the schema does not allow")
        }
    }

    static func required(_ object: JSONObject, _ key: String, _ path: String) throws(FPSv2Error) -> JSONValue {
        guard let value = object[key] else { throw fail("\(path).\(key) is missing") }
        return value
    }

    static func string(_ object: JSONObject, _ key: String, _ path: String) throws(FPSv2Error) -> String {
        guard case .string(let text) = try required(object, key, path) else { throw fail("\(path).\(key) must be a string") }
        return text
    }

    static func optionalString(_ object: JSONObject, _ key: String, _ path: String) throws(FPSv2Error) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw fail("\(path).\(key) must be a string") }
        return text
    }

    static func optionalBool(_ object: JSONObject, _ key: String, _ path: String) throws(FPSv2Error) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { throw fail("\(path).\(key) must be a boolean") }
        return flag
    }
}

// MARK: - Writing

extension FPSv2Manifest {
    public var jsonValue: JSONValue {
        var method: [(String, JSONValue)] = [("algorithm", .string(self.method.algorithm)), ("iv", .string(self.method.iv))]
        if let streamable = self.method.isStreamable { method.append(("isStreamable", .bool(streamable))) }

        var info: [(String, JSONValue)] = [
            ("type", .string(encryptionType)),
            ("keyAccess", .array(keyAccess.map(\.jsonValue))),
            ("method", .object(JSONObject(method))),
            ("policy", .string(policy)),
        ]
        if let integrityInformation { info.append(("integrityInformation", .object(integrityInformation))) }

        var root: [(String, JSONValue)] = [("encryptionInformation", .object(JSONObject(info)))]
        if let payload { root.append(("payload", .object(payload))) }
        if let meta { root.append(("meta", meta)) }
        if let schemaVersion { root.append(("schemaVersion", .string(schemaVersion))) }
        return .object(JSONObject(root))
    }

    /// The canonical bytes: compact, sorted keys, `/` not escaped.
    public func jsonData() -> Data {
        JSONWriter.write(jsonValue, options: [.sortedKeys])
    }
}

extension FPSv2Manifest.KeyAccess {
    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type)), ("url", .string(url)), ("wrappedKey", .string(wrappedKey))]
        switch policyBinding {
        case .object(let alg, let hash):
            members.append(("policyBinding", .object(JSONObject([("alg", .string(alg)), ("hash", .string(hash))]))))
        case .string(let hash):
            members.append(("policyBinding", .string(hash)))
        }
        if let value = self.protocol { members.append(("protocol", .string(value))) }
        if let kid { members.append(("kid", .string(kid))) }
        if let encryptedMetadata { members.append(("encryptedMetadata", .string(encryptedMetadata))) }
        if let schemaVersion { members.append(("schemaVersion", .string(schemaVersion))) }
        return .object(JSONObject(members))
    }
}
