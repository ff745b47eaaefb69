import MediaDRMJSON

/// One entry of `encryptionInformation.keyAccess`: the payload key (or one split of it) wrapped
/// to a KAS key, and the binding that ties that key to the policy.
public struct KeyAccessObject: Sendable, Equatable {
    public enum KeyType: Sendable, Equatable {
        /// RSA-OAEP (SHA-1, MGF1-SHA-1) to the KAS RSA key.
        case wrapped
        /// P-256 ECDH with an ephemeral key, HKDF-SHA256, AES-256-GCM (see `ECWrap`).
        case ecWrapped
        /// Any other type, kept so a manifest can still be inspected.
        case other(String)

        public init(rawValue: String) {
            switch rawValue {
            case "wrapped": self = .wrapped
            case "ec-wrapped": self = .ecWrapped
            default: self = .other(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .wrapped: "wrapped"
            case .ecWrapped: "ec-wrapped"
            case .other(let text): text
            }
        }
    }

    /// `{alg, hash}` in current manifests; a bare string in older ones (kept as written, so a
    /// manifest written back is unchanged).
    public enum PolicyBinding: Sendable, Equatable {
        case object(alg: String, hash: String)
        case string(String)

        public var hash: String {
            switch self {
            case .object(_, let hash): hash
            case .string(let hash): hash
            }
        }

        /// A bare string names no algorithm; HS256 is the only one ever used.
        public var alg: String {
            switch self {
            case .object(let alg, _): alg
            case .string: "HS256"
            }
        }
    }

    public var type: KeyType
    public var url: String
    public var `protocol`: String
    /// Standard base64 of the wrapped key (RSA ciphertext, or ECWrap `nonce ‖ ct ‖ tag`).
    public var wrappedKey: String
    public var policyBinding: PolicyBinding
    public var kid: String?
    public var sid: String?
    public var encryptedMetadata: String?
    /// PEM SPKI of the writer's ephemeral P-256 key (`ec-wrapped` only).
    public var ephemeralPublicKey: String?
    public var schemaVersion: String?

    public init(type: KeyType, url: String, protocol: String = "kas", wrappedKey: String, policyBinding: PolicyBinding,
                kid: String? = nil, sid: String? = nil, encryptedMetadata: String? = nil,
                ephemeralPublicKey: String? = nil, schemaVersion: String? = "1.0") {
        self.type = type
        self.url = url
        self.protocol = `protocol`
        self.wrappedKey = wrappedKey
        self.policyBinding = policyBinding
        self.kid = kid
        self.sid = sid
        self.encryptedMetadata = encryptedMetadata
        self.ephemeralPublicKey = ephemeralPublicKey
        self.schemaVersion = schemaVersion
    }

    init(fields: JSONFields) throws(TDFError) {
        self.type = KeyType(rawValue: try fields.string("type"))
        self.url = try fields.string("url")
        self.protocol = try fields.string("protocol")
        self.wrappedKey = try fields.string("wrappedKey")
        guard let binding = fields.value("policyBinding") else {
            throw TDFError(.malformedManifest, "\(fields.path).policyBinding is missing")
        }
        switch binding {
        case .string(let hash):
            self.policyBinding = .string(hash)
        case .object(let object):
            let inner = JSONFields(object, path: "\(fields.path).policyBinding", code: .malformedManifest)
            self.policyBinding = .object(alg: try inner.string("alg"), hash: try inner.string("hash"))
        default:
            throw TDFError(.malformedManifest, "\(fields.path).policyBinding is neither an object nor a string")
        }
        self.kid = try fields.optionalString("kid")
        self.sid = try fields.optionalString("sid")
        self.encryptedMetadata = try fields.optionalString("encryptedMetadata")
        self.ephemeralPublicKey = try fields.optionalString("ephemeralPublicKey")
        self.schemaVersion = try fields.optionalString("schemaVersion")
        if type == .ecWrapped, ephemeralPublicKey == nil {
            throw TDFError(.malformedManifest, "\(fields.path).ephemeralPublicKey is missing for ec-wrapped")
        }
    }

    /// Reads one key access object from JSON (for a KAS that receives one in a rewrap request).
    public init(json: JSONValue) throws(TDFError) {
        try self.init(fields: JSONFields.root(json, name: "keyAccess", code: .malformedManifest))
    }

    public var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", type.rawValue)
        object.add("url", url)
        object.add("protocol", self.protocol)
        object.add("wrappedKey", wrappedKey)
        switch policyBinding {
        case .object(let alg, let hash):
            var binding = JSONObjectBuilder()
            binding.add("alg", alg)
            binding.add("hash", hash)
            object.add("policyBinding", binding.value)
        case .string(let hash):
            object.add("policyBinding", hash)
        }
        object.addIfPresent("encryptedMetadata", encryptedMetadata)
        object.addIfPresent("kid", kid)
        object.addIfPresent("sid", sid)
        object.addIfPresent("ephemeralPublicKey", ephemeralPublicKey)
        object.addIfPresent("schemaVersion", schemaVersion)
        return object.value
    }
}
