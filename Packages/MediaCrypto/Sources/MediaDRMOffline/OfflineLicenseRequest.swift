import Foundation
import MediaDRMEncoding
import MediaDRMJSON

/// The body of `POST /media/v1/offline-license` (docs/offline.md):
/// `{"assetId", "tdfManifest", "devicePublicKey", "deviceName"?}`. The player writes it, the KAS
/// accepts exactly these members.
public struct OfflineLicenseRequest: Sendable, Equatable {
    /// The member names, each written once.
    public static let members: Set<String> = ["assetId", "tdfManifest", "devicePublicKey", "deviceName"]
    /// Longest `deviceName` kept (UTF-8 bytes).
    public static let maxDeviceNameBytes = 128

    /// The policy uuid.
    public var assetID: String
    /// `manifest.json` exactly as packaged, sent as `tdfManifest` in base64 (as the key request).
    public var manifest: Data
    public var device: OfflineDeviceKey
    /// A label the viewer chose for the device, kept with the licence (never in audit records).
    public var deviceName: String?

    public init(assetID: String, manifest: Data, device: OfflineDeviceKey, deviceName: String? = nil) {
        self.assetID = assetID
        self.manifest = manifest
        self.device = device
        self.deviceName = deviceName
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("assetId", .string(assetID)), ("tdfManifest", .string(Base64.encode(manifest))),
            ("devicePublicKey", device.jsonValue),
        ]
        if let deviceName { members.append(("deviceName", .string(deviceName))) }
        return .object(JSONObject(members))
    }

    /// Reads the body strictly; `maxManifestBytes` bounds the decoded manifest.
    public init(json: JSONValue, maxManifestBytes: Int) throws(OfflineLicenseError) {
        guard case .object(let object) = json else { throw OfflineLicenseError(.malformed, "the body is not a JSON object") }
        guard object.keys.allSatisfy(Self.members.contains) else {
            throw OfflineLicenseError(.malformed, "the body has an unknown member (known: assetId, tdfManifest, devicePublicKey, deviceName)")
        }
        guard case .string(let asset)? = object["assetId"], !asset.isEmpty else {
            throw OfflineLicenseError(.malformed, "assetId must be the policy uuid")
        }
        guard case .string(let text)? = object["tdfManifest"], text.utf8.count <= (maxManifestBytes / 3 + 1) * 4,
              let manifest = try? Base64.decode(text), (1...maxManifestBytes).contains(manifest.count) else {
            throw OfflineLicenseError(.malformed, "tdfManifest must be base64 of the package's manifest.json")
        }
        guard let keyValue = object["devicePublicKey"] else {
            throw OfflineLicenseError(.malformed, "devicePublicKey is required")
        }
        let device = try OfflineDeviceKey(json: keyValue)
        var name: String?
        if let value = object["deviceName"] {
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= Self.maxDeviceNameBytes,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw OfflineLicenseError(.malformed, "deviceName must be 1 to \(Self.maxDeviceNameBytes) bytes of text without control characters")
            }
            name = text
        }
        self.init(assetID: asset, manifest: manifest, device: device, deviceName: name)
    }
}
