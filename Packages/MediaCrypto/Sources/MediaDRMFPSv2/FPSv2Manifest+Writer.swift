// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMMedia

extension FPSv2Manifest {
    /// One component's key as the writer holds it.
    public struct ComponentKey: Sendable {
        /// The component id: the kind in version 2; a cmaf package keyed per resolution class
        /// names its video components `video-sd`, `video-hd`, … (docs/formats.md, "cmaf").
        public var id: String
        public var kind: MediaComponentKind
        /// 16 random bytes (§5.2 #4).
        public var key: SecretKey
        /// The key wrapped to the key service (RSA-OAEP SHA-1 for `wrapped`).
        public var wrappedKey: Data

        public init(id: String? = nil, kind: MediaComponentKind, key: SecretKey, wrappedKey: Data) {
            self.id = id ?? kind.id
            self.kind = kind
            self.key = key
            self.wrappedKey = wrappedKey
        }

        /// Wraps `key` to the KAS RSA key with OAEP SHA-1 and MGF1-SHA-1 (docs/formats.md "Cryptographic conventions").
        public init(id: String? = nil, kind: MediaComponentKind, key: SecretKey, wrappingTo kasKey: RSA.PublicKey) throws(FPSv2Error) {
            let wrapped: Data
            do {
                wrapped = try key.withUnsafeBytes { raw in try kasKey.encrypt(Data(raw), padding: .oaepSHA1) }
            } catch {
                throw FPSv2Error(.invalidArgument, "the content key could not be wrapped to the key service key")
            }
            self.init(id: id, kind: kind, key: key, wrappedKey: wrapped)
        }
    }

    /// Which component lists a writer may make: version 2's (§3: video, then optionally audio,
    /// each id its kind), or a cmaf package's keyed per video resolution class (docs/formats.md,
    /// "cmaf": one or more video components with distinct ids, then optionally audio).
    public enum ComponentLayout: Sendable {
        case version2
        case videoClasses
    }

    /// The component list a writer inserts (§5.3 #1): each component with its `keyBinding`.
    public static func componentList(_ keys: [ComponentKey]) -> MediaComponentList {
        MediaComponentList(entries: keys.map { MediaComponentList.Entry(id: $0.id, kind: $0.kind.rawValue, key: $0.key) })
    }

    /// The policy text a writer stores (§5.3 #4): `arkavo:components` inserted as the first
    /// member of the caller's policy JSON, no other byte changed. Refused, as producer errors: a
    /// policy that already has `arkavo:components`, no lowercase uuid (§6.1), no data attributes
    /// (§6.2: no placeholder policy).
    public static func policyJSON(inserting keys: [ComponentKey], into policy: some DataProtocol,
                                  layout: ComponentLayout = .version2) throws(FPSv2Error) -> Data {
        try checkComponents(keys, layout: layout)
        let inserted: Data
        do {
            inserted = try TDFPolicy.insertComponents(componentList(keys), intoPolicyJSON: policy)
        } catch {
            throw FPSv2Error(.invalidArgument, "the policy cannot take arkavo:components: \(error.reason)")
        }
        guard case .object(let object)? = try? JSONParser.parse(Array(inserted)) else {
            throw FPSv2Error(.invalidArgument, "the policy is not a JSON object")
        }
        guard case .string(let uuid)? = object["uuid"], CanonicalUUID.isCanonical(uuid) else {
            throw FPSv2Error(.invalidArgument, "the policy needs a canonical lowercase uuid (§6.1)")
        }
        guard case .object(let body)? = object["body"], case .array(let attributes)? = body["dataAttributes"], !attributes.isEmpty else {
            throw FPSv2Error(.invalidArgument, "the policy needs non-empty body.dataAttributes (§6.2)")
        }
        return inserted
    }

    /// The manifest of a package (§5): `arkavo:components` inserted into `policy`, the policy
    /// stored as standard base64, one `wrapped` key access per component in list order, each with
    /// its raw HS256 policy binding, and `method.iv`.
    public static func make(policy: some DataProtocol, components keys: [ComponentKey], iv: some DataProtocol,
                            keyServiceURL: String, kid: String? = nil, algorithm: String = "AES-128-CBC",
                            layout: ComponentLayout = .version2) throws(FPSv2Error) -> FPSv2Manifest {
        let ivBytes = Data(iv)
        guard ivBytes.count == 16 else { throw FPSv2Error(.invalidArgument, "the content IV must be 16 bytes (§5.4)") }
        guard KeyServiceURL.normalize(keyServiceURL) != nil else {
            throw FPSv2Error(.invalidArgument, "the key service URL must be an https origin (§5.2)")
        }
        let policyBase64 = Base64.encode(try policyJSON(inserting: keys, into: policy, layout: layout))
        let access = keys.map { component in
            KeyAccess(url: keyServiceURL, wrappedKey: Base64.encode(component.wrappedKey),
                      policyBinding: .object(alg: "HS256", hash: TDFBinding.policyBinding(policyBase64: policyBase64, key: component.key, form: .raw)),
                      protocol: "kas", kid: kid)
        }
        return FPSv2Manifest(keyAccess: access, method: Method(algorithm: algorithm, iv: Base64.encode(ivBytes), isStreamable: true),
                             policy: policyBase64)
    }

    /// Version 2's list (§3, §5.3 #2): video first, optional audio, each id its kind; or the
    /// `videoClasses` layout: video components with distinct ids, then optional audio. 16-byte
    /// keys, none shared.
    static func checkComponents(_ keys: [ComponentKey], layout: ComponentLayout = .version2) throws(FPSv2Error) {
        switch layout {
        case .version2:
            guard let first = keys.first, first.kind == .video, keys.count <= 2 else {
                throw FPSv2Error(.invalidArgument, "the components must be video, then optionally audio (§3)")
            }
            if keys.count == 2, keys[1].kind != .audio { throw FPSv2Error(.invalidArgument, "the second component must be audio (§3)") }
            guard keys.allSatisfy({ $0.id == $0.kind.id }) else { throw FPSv2Error(.invalidArgument, "each component id must be its kind (§5.3)") }
        case .videoClasses:
            let videos = keys.prefix { $0.kind == .video }
            let rest = keys.dropFirst(videos.count)
            guard !videos.isEmpty, rest.count <= 1, rest.allSatisfy({ $0.kind == .audio && $0.id == MediaComponentKind.audio.id }) else {
                throw FPSv2Error(.invalidArgument, "the components must be one or more video, then optionally audio")
            }
            guard Set(keys.map(\.id)).count == keys.count else { throw FPSv2Error(.invalidArgument, "two components have the same id") }
        }
        for (n, component) in keys.enumerated() where keys[..<n].contains(where: { $0.key == component.key }) {
            throw FPSv2Error(.invalidArgument, "two components must not share a key (§5.2 #4)")
        }
        for component in keys where component.key.byteCount != 16 {
            throw FPSv2Error(.invalidArgument, "each content key must be 16 bytes (§5.2 #4)")
        }
        for component in keys where component.wrappedKey.isEmpty {
            throw FPSv2Error(.invalidArgument, "a wrapped key is empty")
        }
    }
}
