// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMMedia

/// A key request as the media service reads it: the `MediaKeyRequestBody` message decoded and
/// its encodings checked (`MediaRouteAdapter.keyRequest`), plus the trusted region of the request.
/// `component` stays optional here: a request without one is refused after its session and
/// manifest checks (`component_missing`, fps-v2 §10.7 step 4), not as malformed.
package struct MediaKeyRequest: Sendable {
    /// How the key is to leave.
    package enum Delivery: Sendable {
        /// The open path: a fresh P-256 public key of the client.
        case clientPublicKey(ECP256.KeyAgreement.PublicKey)
        /// FairPlay: the SPC.
        case spc(Data)
        /// W3C ClearKey (the playback's ClearKey licence URL, docs/delivery.md): the key itself,
        /// which the licence answers as a JWK to the browser's ClearKey CDM. A software client on
        /// the open path, as a `clientPublicKey` one is.
        case clearKey

        package var `protocol`: MediaProtocol {
            switch self {
            case .clientPublicKey, .clearKey: .tdf
            case .spc: .fairplay
            }
        }
    }

    var assetID: String
    var sessionID: String
    var component: String?
    /// `manifest.json` exactly as packaged (the `tdfManifest` member, base64-decoded).
    var manifest: [UInt8]
    var delivery: Delivery
    var device: DeviceReport?
    /// ISO 3166-1 alpha-2 from a trusted source (`TrustedRegionSource`), nil when unknown.
    var region: String?

    package init(assetID: String, sessionID: String, component: String?, manifest: [UInt8], delivery: Delivery,
                 device: DeviceReport?, region: String?) {
        self.assetID = assetID
        self.sessionID = sessionID
        self.component = component
        self.manifest = manifest
        self.delivery = delivery
        self.device = device
        self.region = region
    }
}

/// A request the route adapter could not decode: the rule it broke, and what it could read of the
/// request for the audit log (asset, component and protocol, each only when well-formed).
package struct MalformedMediaRequest: Error, Sendable {
    package var failure: MediaFailure
    package var asset: String?
    package var component: String?
    package var `protocol`: MediaProtocol?

    package init(_ code: String, message: String, asset: String? = nil, component: String? = nil,
         protocol: MediaProtocol? = nil) {
        self.failure = .malformed(code: code, message: message)
        self.asset = asset
        self.component = component
        self.protocol = `protocol`
    }
}
