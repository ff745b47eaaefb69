// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline
import MediaDRMTDF

/// The player's checks of an offline licence, with no network (docs/offline.md), in this order:
/// the signature against the licence-signing keys pinned for its key service (`pin(_:)`,
/// `pinnedSigningKeys(for:)`), the device thumbprint (`cnf.jkt`) against
/// this library's key, the asset against the stored package, the clock against the licence's
/// issue time, `exp`, and the playback window counted from the first offline play. `now` is
/// already checked against the library's high-water mark (`OfflineLibrary.observeClock`).
struct OfflineLicenseCheck {
    let license: OfflineLicense

    init(compact: String, signingKeys: JSONObject, deviceKey: ECP256.KeyAgreement.PrivateKey,
         assetID: String) throws(OfflineError) {
        let keys: JWKSet
        do {
            keys = try JWKSet(jsonObject: signingKeys, skippingUnsupportedKeys: true)
        } catch {
            throw OfflineError(.licenseSignature, "the pinned licence-signing keys are not a usable key set: run player license renew")
        }
        let license: OfflineLicense
        do {
            license = try OfflineLicense.verified(compact, signingKeys: keys)
        } catch {
            throw OfflineError(.licenseSignature, "the licence does not verify with the licence-signing keys pinned for its "
                               + "key service: it was changed or signed by another key (\(error.reason))")
        }
        guard license.deviceThumbprint == Self.thumbprint(deviceKey) else { throw Self.anotherDevice }
        guard license.asset == assetID else {
            throw OfflineError(.licenseAsset, "the licence is for another asset than the stored package")
        }
        self.license = license
    }

    static let anotherDevice = OfflineError(.licenseDevice, "the licence is bound to another device key: it was issued to "
                                            + "another library; download the title again in this one")

    static func thumbprint(_ deviceKey: ECP256.KeyAgreement.PrivateKey) -> String? {
        (try? OfflineDeviceKey(deviceKey.publicKey))?.thumbprint
    }

    /// Refuses a licence that names another device in its (unverified) payload: a title copied
    /// from another library, whose sealed records cannot open here either, gets the reason that
    /// is true for it. Read without verifying, so it only ever chooses between refusals; a
    /// licence this check lets through is verified in full by `init`.
    static func refuseAnotherDevice(_ compact: String, deviceKey: ECP256.KeyAgreement.PrivateKey) throws(OfflineError) {
        guard let payload = try? JWS.unverifiedContents(of: compact).payload,
              let json = try? JSONParser.parse(payload), let license = try? OfflineLicense(json: json) else { return }
        if license.deviceThumbprint != thumbprint(deviceKey) { throw anotherDevice }
    }

    /// Checks the licence's times at `now` (seconds since the epoch), given the first offline play.
    func checkTimes(now: Int64, firstPlayedAt: Int64?) throws(OfflineError) {
        if now + OfflineLibrary.clockTolerance < license.issuedAt {
            throw OfflineError(.clockSetBack, "the system clock is earlier than the licence's issue time: set the clock right")
        }
        guard now < license.expiresAt else {
            throw OfflineError(.licenseExpired, "the licence expired at \(OfflineTimestamp.rfc3339(OfflineTimestamp.date(numericDate: license.expiresAt))): "
                               + "renew it online with player license renew")
        }
        if let window = license.playbackWindowSeconds, let first = firstPlayedAt, now >= first + window {
            throw OfflineError(.playbackWindowOver, "the playback window of \(window) seconds from the first offline play is over")
        }
    }

    /// Each component's content key, unwrapped with the device key (in memory only) and checked
    /// against the package's `keyBinding` for that component (fps-v2 §5.3: HMAC-SHA256 of the
    /// component id under the key), so a licence can only open the package it was issued for.
    func contentKeys(deviceKey: ECP256.KeyAgreement.PrivateKey,
                     components: [(kind: MediaComponentKind, keyBinding: String)]) throws(OfflineError) -> [String: SecretKey] {
        var keys: [String: SecretKey] = [:]
        for component in components {
            let id = component.kind.id
            guard let entry = license.key(for: component.kind) else {
                throw OfflineError(.licenseAsset, "the licence has no key for the package's \(id) component")
            }
            let key: SecretKey
            do {
                key = try entry.unwrap(with: deviceKey)
            } catch {
                throw OfflineError(.licenseDevice, "the licence's \(id) key does not open with this library's device key")
            }
            guard TDFBinding.isValidKeyBinding(component.keyBinding, componentID: id, key: key) else {
                throw OfflineError(.licenseAsset, "the licence's \(id) key is not the stored package's key")
            }
            keys[id] = key
        }
        return keys
    }
}
