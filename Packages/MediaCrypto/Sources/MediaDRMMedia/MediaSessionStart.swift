// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMJSON

/// The body of `POST /media/v1/session/start` (docs/protocol.md): the client writes it, the KAS
/// accepts exactly its members.
public struct MediaSessionStart: Sendable, Equatable {
    /// The member names, each written once.
    public static let members: Set<String> = ["assetId", "protocol", "playbackId", "device", "component"]

    /// The policy uuid (fps-v2 §10.3).
    public var assetID: String
    public var `protocol`: MediaProtocol
    /// One per playback, shared by its components' sessions (one concurrency slot).
    public var playbackID: String?
    public var component: String?
    public var device: DeviceReport?

    public init(assetID: String, protocol: MediaProtocol, playbackID: String? = nil, component: String? = nil,
                device: DeviceReport? = nil) {
        self.assetID = assetID
        self.protocol = `protocol`
        self.playbackID = playbackID
        self.component = component
        self.device = device
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("assetId", .string(assetID)), ("protocol", .string(`protocol`.rawValue))]
        if let playbackID { members.append(("playbackId", .string(playbackID))) }
        if let component { members.append(("component", .string(component))) }
        if let device { members.append(("device", device.jsonValue)) }
        return .object(JSONObject(members))
    }
}
