/// The key URI of an fps-v2 media playlist (§7.3): `skd://<policy uuid>/<component id>`, with the
/// policy uuid canonical (`CanonicalUUID`) and the component id one of version 2's. The playlist
/// writer builds it, the readers and a FairPlay key delegate read which component it names. A
/// cmaf package keyed per resolution class names its video components `video-sd` … `video-uhd2`
/// (`MediaComponentList.videoClassIDs`; docs/formats.md "cmaf"): `init?(servedKey:)` reads those
/// too, `init?(_:)` only version 2's, as the fps-v2 readers require.
public struct SKDKeyURI: Sendable, Equatable, Hashable {
    public static let scheme = "skd://"

    public let policyUUID: String
    /// The kind of the component named: `video` for every video class.
    public let component: MediaComponentKind
    /// The component id as written: the kind's id, or a video class's.
    public let componentID: String

    public init(policyUUID: String, component: MediaComponentKind) {
        self.init(policyUUID: policyUUID, component: component, componentID: component.id)
    }

    private init(policyUUID: String, component: MediaComponentKind, componentID: String) {
        self.policyUUID = policyUUID
        self.component = component
        self.componentID = componentID
    }

    /// A served key's URI: nil unless `componentID` is a version 2 kind's id or a video class's.
    public init?(policyUUID: String, componentID: String) {
        self.init(servedKey: Self.scheme + policyUUID + "/" + componentID)
    }

    /// nil unless `text` is exactly `skd://` + canonical uuid + `/` + a version 2 component id.
    public init?(_ text: some StringProtocol) {
        guard let (uuid, id) = Self.parts(text), let component = MediaComponentKind(rawValue: id) else { return nil }
        self.init(policyUUID: uuid, component: component)
    }

    /// As `init?(_:)`, also taking a video class's component id (a cmaf package keyed per
    /// resolution class): the URIs a KAS serves keys for.
    public init?(servedKey text: some StringProtocol) {
        guard let (uuid, id) = Self.parts(text) else { return nil }
        if let component = MediaComponentKind(rawValue: id) {
            self.init(policyUUID: uuid, component: component)
        } else if MediaComponentList.videoClassIDs.contains(id) {
            self.init(policyUUID: uuid, component: .video, componentID: id)
        } else {
            return nil
        }
    }

    /// The canonical uuid and the component id of `skd://<uuid>/<id>`.
    private static func parts(_ text: some StringProtocol) -> (String, String)? {
        guard text.hasPrefix(scheme) else { return nil }
        let parts = text.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, CanonicalUUID.isCanonical(parts[0]) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    public var text: String { Self.scheme + policyUUID + "/" + componentID }
}
