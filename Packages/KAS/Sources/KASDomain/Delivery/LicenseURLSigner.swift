import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// The FairPlay licence URL's own authorization (docs/delivery.md#the-fairplay-licence-url):
/// players post the raw SPC to it without any header (the JW iOS client does), so the URL
/// carries `expires` and `sig`, the base64url HMAC-SHA256 of `playbackId`, component and expiry
/// under a key the playback store provides (`PlaybackStore.licenseURLKey`): one node keeps it in
/// its data directory (`LicenseURLKeyFile`), so a URL outlives a restart as its playback does;
/// nodes sharing a Redis share it there, so a URL one node handed out works on every other. A
/// URL is good for one playback's one component until it expires (and while the playback is not
/// released).
struct LicenseURLSigner: Sendable {
    /// The HMAC key's size.
    static let keyByteCount = 32

    private let key: SecretKey

    init(key: SecretKey) {
        self.key = key
    }

    /// A fresh random key (drawn once per store).
    static func randomKey() throws(CryptoError) -> SecretKey {
        SecretKey(data: try SecureRandom.bytes(count: keyByteCount))
    }

    /// What a signed URL opens: one component's FairPlay licence, the playback's ClearKey
    /// licence, the playback's manifests, its FairPlay certificate (`delivery.signedCertificateURL`)
    /// or its release by an app that holds no bearer (docs/delivery.md). Each signs its own text, so no
    /// URL's signature opens another route.
    enum Purpose: Sendable, Equatable {
        case fairPlay(component: String)
        case clearKey
        case manifests
        case certificate
        case release
        /// The delivery API's FairPlay `processSpcUrl`: the raw-SPC licence URL that starts its
        /// playback (`id`, drawn by the description) on its first SPC, for the viewer and title
        /// sealed in `ticket` (`DeliveryService+ProcessSPC`).
        case processSPC(ticket: String)
        /// The same description's `certificateUrl` (`delivery.signedCertificateURL`): the
        /// certificate for the viewer and title of `ticket`, before its playback starts.
        case processSPCCertificate(ticket: String)
        /// Not a URL: the name under which a `processSpcUrl`'s ticket is sealed, so only this key
        /// opens it.
        case processSPCSeal
        /// Not a URL: a Cloud Video Kit playback's id, one per viewer token and title, so the
        /// token's later SPCs reuse the playback its first started (`DeliveryService+CloudVideoKit`).
        case cloudVideoKitPlayback(assetID: String, userToken: String)

        /// Newline-separated: neither a playback id nor a component id can hold one. The FairPlay
        /// text is the one URLs were signed with before the other purposes existed.
        func message(_ playbackID: String, _ expires: Int64) -> Data {
            switch self {
            case .fairPlay(let component): Data("fairplay-license\n\(playbackID)\n\(component)\n\(expires)".utf8)
            case .clearKey: Data("clearkey-license\n\(playbackID)\n\(expires)".utf8)
            case .manifests: Data("playback-manifests\n\(playbackID)\n\(expires)".utf8)
            case .certificate: Data("playback-certificate\n\(playbackID)\n\(expires)".utf8)
            case .release: Data("playback-release\n\(playbackID)\n\(expires)".utf8)
            case .processSPC(let ticket): Data("fairplay-process-spc\n\(playbackID)\n\(expires)\n\(ticket)".utf8)
            case .processSPCCertificate(let ticket):
                Data("fairplay-process-spc-certificate\n\(playbackID)\n\(expires)\n\(ticket)".utf8)
            case .processSPCSeal: Data("fairplay-process-spc-seal\n\(playbackID)\n\(expires)".utf8)
            case .cloudVideoKitPlayback(let assetID, let userToken): Data("cloud-video-kit-playback\n\(assetID)\n\(userToken)".utf8)
            }
        }
    }

    /// `?expires=...&sig=...` for the path of the licence route.
    func query(playbackID: String, component: String, expires: Int64) -> String {
        query(.fairPlay(component: component), playbackID: playbackID, expires: expires)
    }

    /// `expires=...&sig=...` for a URL of `purpose`.
    func query(_ purpose: Purpose, playbackID: String, expires: Int64) -> String {
        "expires=\(expires)&sig=\(code(purpose, playbackID: playbackID, expires: expires))"
    }

    /// The base64url HMAC-SHA256 of `purpose`'s text under the key.
    func code(_ purpose: Purpose, playbackID: String, expires: Int64) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(purpose.message(playbackID, expires), key: key))
    }

    /// Whether `sig` signs these values; compared in constant time.
    func isValid(_ sig: String, playbackID: String, component: String, expires: Int64) -> Bool {
        isValid(sig, .fairPlay(component: component), playbackID: playbackID, expires: expires)
    }

    func isValid(_ sig: String, _ purpose: Purpose, playbackID: String, expires: Int64) -> Bool {
        guard let mac = try? Base64URL.decode(sig) else { return false }
        return HMACSHA256.isValid(mac, for: purpose.message(playbackID, expires), key: key)
    }
}
