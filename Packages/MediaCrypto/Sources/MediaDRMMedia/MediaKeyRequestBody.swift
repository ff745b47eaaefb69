// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMEncoding
import MediaDRMJSON

/// The body of `POST /media/v1/key-request` (docs/protocol.md, fps-v2 §10.2): the client writes
/// it, the KAS accepts exactly its members.
public struct MediaKeyRequestBody: Sendable, Equatable {
    /// The member names, each written once.
    public static let members: Set<String> = [
        "assetId", "component", "sessionId", "tdfManifest", "spcData", "clientPublicKey", "device",
    ]

    /// How the key is to leave: exactly one of the two members.
    public enum Delivery: Sendable, Equatable {
        /// `clientPublicKey`: the PEM of a fresh ephemeral P-256 key (the open path).
        case clientPublicKey(String)
        /// `spcData`: a FairPlay SPC.
        case spc(Data)
    }

    public var assetID: String
    public var component: String
    public var sessionID: String
    /// `manifest.json` exactly as packaged, sent as `tdfManifest` in base64.
    public var manifest: Data
    public var delivery: Delivery
    public var device: DeviceReport?

    public init(assetID: String, component: String, sessionID: String, manifest: Data, delivery: Delivery,
                device: DeviceReport? = nil) {
        self.assetID = assetID
        self.component = component
        self.sessionID = sessionID
        self.manifest = manifest
        self.delivery = delivery
        self.device = device
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("assetId", .string(assetID)), ("component", .string(component)), ("sessionId", .string(sessionID)),
            ("tdfManifest", .string(Base64.encode(manifest))),
        ]
        switch delivery {
        case .clientPublicKey(let pem): members.append(("clientPublicKey", .string(pem)))
        case .spc(let spc): members.append(("spcData", .string(Base64.encode(spc))))
        }
        if let device { members.append(("device", device.jsonValue)) }
        return .object(JSONObject(members))
    }
}
