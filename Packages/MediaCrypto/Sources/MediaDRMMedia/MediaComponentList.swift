// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMEncoding
import MediaDRMJSON

/// The policy member `arkavo:components` (fps-v2 §5.3): the protected components of a package in
/// key access order, each with the `keyBinding` that ties its content key to its id. This is the
/// one model of the member: the TDF policy carries it (`TDFPolicy.components`), the packager
/// writes it, and the readers' admission (`FPSv2Admission`) and the KAS read it.
///
/// Two readers, because a policy is not always a media package's: `init(json:)` takes any list
/// of well-formed entries, as a generic Standard TDF may carry (another writer's kinds, any
/// order, extra entry members kept); `init(version2:)` is the strict media admission, which
/// takes only the version 2 shape.
public struct MediaComponentList: Sendable, Equatable {
    /// The policy member's name.
    public static let policyKey = "arkavo:components"

    /// One entry: the string members `id`, `kind` and `keyBinding`.
    public struct Entry: Sendable, Equatable {
        public var id: String
        /// The kind as written; `mediaKind` is the kind this version plays, when it is one.
        public var kind: String
        /// Canonical standard base64 of the 32-byte binding, as written (checked by
        /// `checkKeyBindingForms()`).
        public var keyBinding: String
        /// Other members of the entry, in their original order, so a policy written back loses
        /// nothing. The version 2 shape has none.
        public var additionalMembers: JSONObject

        public init(id: String, kind: String, keyBinding: String, additionalMembers: JSONObject = JSONObject([])) {
            self.id = id
            self.kind = kind
            self.keyBinding = keyBinding
            self.additionalMembers = additionalMembers
        }

        /// The entry of a version 2 component: its id is its kind.
        public init(kind: MediaComponentKind, keyBinding: String) {
            self.init(id: kind.id, kind: kind.rawValue, keyBinding: keyBinding)
        }

        public var mediaKind: MediaComponentKind? { MediaComponentKind(rawValue: kind) }

        /// Compact, keys in the order id, kind, keyBinding (fps-v2 §5.3), then any others.
        public var jsonValue: JSONValue {
            var members: [(String, JSONValue)] = [("id", .string(id)), ("kind", .string(kind)), ("keyBinding", .string(keyBinding))]
            for member in additionalMembers { members.append((member.key, member.value)) }
            return .object(JSONObject(members))
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The kinds this version plays, in list order: one per entry for a list read with
    /// `init(version2:)`.
    public var kinds: [MediaComponentKind] { entries.compactMap(\.mediaKind) }

    public var jsonValue: JSONValue { .array(entries.map(\.jsonValue)) }

    /// Reads any well-formed list: an array (possibly empty) of objects, each with the string
    /// members `id`, `kind` and `keyBinding`; other members are kept in `additionalMembers`.
    public init(json value: JSONValue) throws(MediaComponentListError) {
        guard case .array(let items) = value else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) is not an array")
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item,
                  case .string(let id)? = object["id"], case .string(let kind)? = object["kind"],
                  case .string(let binding)? = object["keyBinding"] else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey)[\(index)] does not have the string members id, kind and keyBinding")
            }
            var others: [(String, JSONValue)] = []
            for member in object where !Self.entryKeys.contains(member.key) { others.append((member.key, member.value)) }
            entries.append(Entry(id: id, kind: kind, keyBinding: binding, additionalMembers: JSONObject(others)))
        }
        self.entries = entries
    }

    /// fps-v2 §3, §5.3: a version 2 list names its components in this order, video first and
    /// audio only when present, each component id equal to its kind.
    public static let version2Order: [MediaComponentKind] = [.video, .audio]

    /// Reads the member's value with the version 2 shape, as media admission requires: present, a
    /// non-empty array of at most one entry per kind, in `version2Order`,
    /// each entry exactly the string members `id`, `kind` and `keyBinding`, each id equal to its
    /// kind.
    public init(version2 value: JSONValue?) throws(MediaComponentListError) {
        guard let value else { throw MediaComponentListError(.missing, "the policy has no \(Self.policyKey)") }
        let order = Self.version2Order
        guard case .array(let items) = value, !items.isEmpty else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) is not a non-empty array")
        }
        guard items.count <= order.count else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) lists more than video and audio")
        }
        let list = try MediaComponentList(json: value)
        for (index, entry) in list.entries.enumerated() {
            guard entry.additionalMembers.isEmpty else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey)[\(index)] has members other than id, kind and keyBinding")
            }
            let expected = order[index]
            guard entry.id == expected.id, entry.kind == expected.rawValue else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey)[\(index)] must be {id:\"\(expected.id)\", kind:\"\(expected.rawValue)\"}")
            }
        }
        self = list
    }

    /// The video component ids of a cmaf package keyed per resolution class (docs/formats.md,
    /// "cmaf"), in the order a list names them: SD, HD, UHD1, UHD2.
    public static let videoClassIDs = ["video-sd", "video-hd", "video-uhd1", "video-uhd2"]

    /// Reads a list a KAS serves keys for: the version 2 shape (`init(version2:)`), or a cmaf
    /// package's keyed per resolution class: one to four video entries of kind `video` whose ids
    /// are `videoClassIDs` in that order (each at most once), then optionally
    /// `{id:"audio", kind:"audio"}`, each entry exactly the string members `id`, `kind` and
    /// `keyBinding`. Media admission of fps-v2 packages keeps `init(version2:)`.
    public init(servedKeys value: JSONValue?) throws(MediaComponentListError) {
        guard let value else { throw MediaComponentListError(.missing, "the policy has no \(Self.policyKey)") }
        if let version2 = try? MediaComponentList(version2: value) {
            self = version2
            return
        }
        let list = try MediaComponentList(json: value)
        let videos = list.entries.prefix { $0.kind == MediaComponentKind.video.rawValue }
        let rest = list.entries.dropFirst(videos.count)
        var classes = Self.videoClassIDs[...]
        for entry in videos {
            guard let position = classes.firstIndex(of: entry.id) else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey) names video components other than \(Self.videoClassIDs.joined(separator: ", ")) in that order")
            }
            classes = classes[(position + 1)...]
        }
        guard !videos.isEmpty, rest.count <= 1,
              rest.allSatisfy({ $0.id == MediaComponentKind.audio.id && $0.kind == MediaComponentKind.audio.rawValue }) else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) must list video components, then optionally audio")
        }
        guard list.entries.allSatisfy({ $0.additionalMembers.isEmpty }) else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) has entries with members other than id, kind and keyBinding")
        }
        self = list
    }

    /// §5.3: every `keyBinding` is canonical standard base64 of 32 bytes (an HMAC-SHA256).
    public func checkKeyBindingForms() throws(MediaComponentListError) {
        for entry in entries {
            guard let bytes = try? Base64.decode(entry.keyBinding), bytes.count == 32 else {
                throw MediaComponentListError(.keyBindingForm, "the keyBinding of \(entry.id) is not canonical standard base64 of 32 bytes")
            }
        }
    }

    private static let entryKeys: Set<String> = ["id", "kind", "keyBinding"]
}
