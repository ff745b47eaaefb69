import MediaDRMJSON

/// The body of `POST /media/v1/playback` (docs/delivery.md#playbacks): members exactly its own.
package struct PlaybackRequest: Sendable, Equatable {
    static let members: Set<String> = ["assetId", "drmSystem", "manifestTypes", "clientPlatform"]

    package var assetID: String?
    package var drmSystem: DeliveryDRMSystem
    /// `hls` and/or `dash` (`dash` for cmaf titles only); `[hls]` when not given.
    package var manifestTypes: Set<ManifestType>
    /// Whether the caller said the title is live (DRM-X's `contentType`); nil when it did not say.
    /// A title that is not what was said is refused (`DeliveryService.checkServed`).
    package var live: Bool?

    /// The manifest forms a playback answers URLs for.
    package enum ManifestType: String, Sendable, Equatable, CaseIterable {
        case hls
        case dash
    }

    package init(assetID: String?, drmSystem: DeliveryDRMSystem, manifestTypes: Set<ManifestType> = [.hls]) {
        self.assetID = assetID
        self.drmSystem = drmSystem
        self.manifestTypes = manifestTypes
    }

    /// Reads the message; `manifestTypes`, when given, is a non-empty list of distinct `hls` and
    /// `dash`, and `clientPlatform` is 1 to 32 bytes.
    package init(json: JSONValue) throws(DeliveryFailure) {
        guard case .object(let body) = json, body.keys.allSatisfy(Self.members.contains),
              case .string(let systemText)? = body["drmSystem"], let system = DeliveryDRMSystem(rawValue: systemText)
        else { throw .malformed("malformed playback request") }
        var manifestTypes: Set<ManifestType> = [.hls]
        if let value = body["manifestTypes"] {
            let types = value.array?.compactMap { $0.string.flatMap(ManifestType.init(rawValue:)) } ?? []
            guard !types.isEmpty, types.count == value.array?.count, Set(types).count == types.count else {
                throw .malformed("manifestTypes is a list of hls and dash")
            }
            manifestTypes = Set(types)
        }
        if let value = body["clientPlatform"] {
            guard case .string(let platform) = value, (1...32).contains(platform.utf8.count) else {
                throw .malformed("malformed playback request")
            }
        }
        self.init(assetID: body["assetId"]?.string, drmSystem: system, manifestTypes: manifestTypes)
    }
}
