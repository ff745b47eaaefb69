/// The key URI of an fps-v2 media playlist (§7.3): `skd://<policy uuid>/<component id>`, with the
/// policy uuid canonical (`CanonicalUUID`) and the component id one of version 2's. The playlist
/// writer builds it, the readers and a FairPlay key delegate read which component it names.
public struct SKDKeyURI: Sendable, Equatable, Hashable {
    public static let scheme = "skd://"

    public let policyUUID: String
    public let component: MediaComponentKind

    public init(policyUUID: String, component: MediaComponentKind) {
        self.policyUUID = policyUUID
        self.component = component
    }

    /// nil unless `text` is exactly `skd://` + canonical uuid + `/` + a version 2 component id.
    public init?(_ text: some StringProtocol) {
        guard text.hasPrefix(Self.scheme) else { return nil }
        let parts = text.dropFirst(Self.scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, CanonicalUUID.isCanonical(parts[0]),
              let component = MediaComponentKind(rawValue: String(parts[1])) else { return nil }
        self.init(policyUUID: String(parts[0]), component: component)
    }

    public var text: String { Self.scheme + policyUUID + "/" + component.id }
}
