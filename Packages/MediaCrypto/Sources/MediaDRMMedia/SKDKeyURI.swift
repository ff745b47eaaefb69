import Foundation
import MediaDRMEncoding

/// The key URI of an fps-v2 media playlist (§7.3): `skd://<policy uuid>/<component id>`, with the
/// policy uuid canonical (`CanonicalUUID`) and the component id one of version 2's. The playlist
/// writer builds it, the readers and a FairPlay key delegate read which component it names. A
/// cmaf package keyed per resolution class names its video components `video-sd` … `video-uhd2`
/// (`MediaComponentList.videoClassIDs`; docs/formats.md "cmaf"): `init?(servedKey:)` reads those
/// too, `init?(_:)` only version 2's, as the fps-v2 readers require.
///
/// A served key may also carry the content key's id and IV as `?kid=<32 hex>&iv=<32 hex>`, the
/// shape Cloud Video Kit's apps copy onto their licence request (docs/delivery.md "Cloud Video
/// Kit"): the fps-v2 views write it (`withKey(id:iv:)`), `parse(servedKey:)` reads it strictly.
public struct SKDKeyURI: Sendable, Equatable, Hashable {
    public static let scheme = "skd://"
    /// Longer text is refused before it is split: the longest valid URI is well under this.
    public static let maximumLength = 256
    /// The byte count of the `kid` and of the `iv` query items.
    public static let keyItemBytes = 16

    public let policyUUID: String
    /// The kind of the component named: `video` for every video class.
    public let component: MediaComponentKind
    /// The component id as written: the kind's id, or a video class's.
    public let componentID: String
    /// The `kid` query item (16 bytes), when written.
    public let keyID: Data?
    /// The `iv` query item (16 bytes), when written.
    public let iv: Data?

    public init(policyUUID: String, component: MediaComponentKind) {
        self.init(policyUUID: policyUUID, component: component, componentID: component.id)
    }

    private init(policyUUID: String, component: MediaComponentKind, componentID: String, keyID: Data? = nil, iv: Data? = nil) {
        self.policyUUID = policyUUID
        self.component = component
        self.componentID = componentID
        self.keyID = keyID
        self.iv = iv
    }

    /// The same key named with its content key id and IV as query items (each 16 bytes).
    public func withKey(id keyID: Data, iv: Data) -> SKDKeyURI? {
        guard keyID.count == Self.keyItemBytes, iv.count == Self.keyItemBytes else { return nil }
        return SKDKeyURI(policyUUID: policyUUID, component: component, componentID: componentID, keyID: keyID, iv: iv)
    }

    /// A served key's URI: nil unless `componentID` is a version 2 kind's id or a video class's.
    public init?(policyUUID: String, componentID: String) {
        self.init(servedKey: Self.scheme + policyUUID + "/" + componentID)
    }

    /// nil unless `text` is exactly `skd://` + canonical uuid + `/` + a version 2 component id.
    public init?(_ text: some StringProtocol) {
        guard let (uuid, id, query) = try? Self.parts(text), query == nil,
              let component = MediaComponentKind(rawValue: id) else { return nil }
        self.init(policyUUID: uuid, component: component)
    }

    /// As `init?(_:)`, also taking a video class's component id (a cmaf package keyed per
    /// resolution class) and the `kid` and `iv` query items: the URIs a KAS serves keys for.
    public init?(servedKey text: some StringProtocol) {
        guard let uri = try? Self.parse(servedKey: text) else { return nil }
        self = uri
    }

    /// `init?(servedKey:)` with the reason a URI is refused.
    public static func parse(servedKey text: some StringProtocol) throws(SKDKeyURIError) -> SKDKeyURI {
        guard text.utf8.count <= maximumLength else { throw .tooLong }
        let (uuid, id, query) = try parts(text)
        let (keyID, iv) = try query.map { (query) throws(SKDKeyURIError) in try keyItems(query) } ?? (nil, nil)
        if let component = MediaComponentKind(rawValue: id) {
            return SKDKeyURI(policyUUID: uuid, component: component, componentID: id, keyID: keyID, iv: iv)
        } else if MediaComponentList.videoClassIDs.contains(id) {
            return SKDKeyURI(policyUUID: uuid, component: .video, componentID: id, keyID: keyID, iv: iv)
        }
        throw .unknownComponent
    }

    /// The canonical uuid, the component id and the query (after `?`, if any) of `skd://<uuid>/<id>[?query]`.
    private static func parts(_ text: some StringProtocol) throws(SKDKeyURIError) -> (String, String, Substring?) {
        guard text.hasPrefix(scheme) else { throw .notSKD }
        let rest = Substring(text).dropFirst(scheme.count)
        let mark = rest.firstIndex(of: "?")
        let path = mark.map { rest[..<$0] } ?? rest
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, CanonicalUUID.isCanonical(parts[0]) else { throw .malformedPath }
        return (String(parts[0]), String(parts[1]), mark.map { rest[rest.index(after: $0)...] })
    }

    /// Exactly `kid=<32 hex>&iv=<32 hex>`, in either order, each once.
    private static func keyItems(_ query: Substring) throws(SKDKeyURIError) -> (Data, Data) {
        var keyID: Data?, iv: Data?
        let items = query.split(separator: "&", omittingEmptySubsequences: false)
        guard items.count == 2 else { throw .malformedQuery }
        for item in items {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { throw .malformedQuery }
            switch pair[0] {
            case "kid" where keyID == nil:
                guard let bytes = keyItem(pair[1]) else { throw .malformedKeyID }
                keyID = bytes
            case "iv" where iv == nil:
                guard let bytes = keyItem(pair[1]) else { throw .malformedIV }
                iv = bytes
            default: throw .malformedQuery
            }
        }
        guard let keyID, let iv else { throw .malformedQuery }
        return (keyID, iv)
    }

    /// A `kid` or `iv` item's value: exactly `keyItemBytes` as hex (either case), else nil.
    public static func keyItem(_ text: some StringProtocol) -> Data? {
        guard text.utf8.count == keyItemBytes * 2 else { return nil }
        return try? Hex.decode(text)
    }

    /// The content id of the URI (what follows `skd://`, as an SPC carries it).
    public var contentID: String {
        var id = policyUUID + "/" + componentID
        if let keyID, let iv { id += "?kid=" + Hex.encode(keyID) + "&iv=" + Hex.encode(iv) }
        return id
    }

    public var text: String { Self.scheme + contentID }
}

/// Why a served key's `skd://` URI is refused (`SKDKeyURI.parse(servedKey:)`).
public enum SKDKeyURIError: Error, Sendable, Equatable {
    case tooLong, notSKD, malformedPath, unknownComponent, malformedQuery, malformedKeyID, malformedIV
}
