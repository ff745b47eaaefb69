import MediaDRMEncoding
import MediaDRMJSON

/// The policy member `arkavo:components` (fps-v2 §5.3): the protected components of a package in
/// key access order, each with the `keyBinding` that ties its content key to its id. Read here
/// once, for the readers' admission (`FPSv2Admission`) and the KAS alike.
public struct MediaComponentList: Sendable, Equatable {
    /// The policy member's name.
    public static let policyKey = "arkavo:components"

    /// One entry: exactly the string members `id`, `kind` and `keyBinding`.
    public struct Entry: Sendable, Equatable {
        public let id: String
        public let kind: MediaComponentKind
        /// Canonical standard base64 of the 32-byte binding, as written (checked by
        /// `checkKeyBindingForms()`).
        public let keyBinding: String
    }

    public let entries: [Entry]

    public var kinds: [MediaComponentKind] { entries.map(\.kind) }

    /// Reads the member's value with the version 2 shape: a non-empty array of at most one entry
    /// per kind, in `FPSv2Profile.version2ComponentOrder`, each id equal to its kind.
    public init(json value: JSONValue?) throws(MediaComponentListError) {
        guard let value else { throw MediaComponentListError(.missing, "the policy has no \(Self.policyKey)") }
        let order = FPSv2Profile.version2ComponentOrder
        guard case .array(let items) = value, !items.isEmpty else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) is not a non-empty array")
        }
        guard items.count <= order.count else {
            throw MediaComponentListError(.malformed, "\(Self.policyKey) lists more than video and audio")
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item, object.count == 3,
                  case .string(let id)? = object["id"], case .string(let kind)? = object["kind"],
                  case .string(let binding)? = object["keyBinding"] else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey)[\(index)] does not have exactly the string members id, kind and keyBinding")
            }
            let expected = order[index]
            guard id == expected.id, kind == expected.rawValue else {
                throw MediaComponentListError(.malformed, "\(Self.policyKey)[\(index)] must be {id:\"\(expected.id)\", kind:\"\(expected.rawValue)\"}")
            }
            entries.append(Entry(id: id, kind: expected, keyBinding: binding))
        }
        self.entries = entries
    }

    /// §5.3: every `keyBinding` is canonical standard base64 of 32 bytes (an HMAC-SHA256).
    public func checkKeyBindingForms() throws(MediaComponentListError) {
        for entry in entries {
            guard let bytes = try? Base64.decode(entry.keyBinding), bytes.count == 32 else {
                throw MediaComponentListError(.keyBindingForm, "the keyBinding of \(entry.id) is not canonical standard base64 of 32 bytes")
            }
        }
    }
}
