import MediaDRMJSON

/// The body of `POST /media/v1/playback` (docs/delivery.md#playbacks): members exactly its own.
package struct PlaybackRequest: Sendable, Equatable {
    static let members: Set<String> = ["assetId", "drmSystem", "manifestTypes", "clientPlatform"]

    package var assetID: String?
    package var drmSystem: DeliveryDRMSystem

    package init(assetID: String?, drmSystem: DeliveryDRMSystem) {
        self.assetID = assetID
        self.drmSystem = drmSystem
    }

    /// Reads the message; `manifestTypes` must include `hls` (the only type served) and
    /// `clientPlatform` is 1 to 32 bytes.
    package init(json: JSONValue) throws(DeliveryFailure) {
        guard case .object(let body) = json, body.keys.allSatisfy(Self.members.contains),
              case .string(let systemText)? = body["drmSystem"], let system = DeliveryDRMSystem(rawValue: systemText)
        else { throw .malformed("malformed playback request") }
        if let value = body["manifestTypes"] {
            guard case .array(let types) = value, types.contains(.string("hls")) else {
                throw .malformed("manifestTypes must include hls, the only manifest type served")
            }
        }
        if let value = body["clientPlatform"] {
            guard case .string(let platform) = value, (1...32).contains(platform.utf8.count) else {
                throw .malformed("malformed playback request")
            }
        }
        self.init(assetID: body["assetId"]?.string, drmSystem: system)
    }
}
