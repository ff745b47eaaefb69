import Foundation
import MediaDRMMedia

extension DeliveryService {
    /// The signed licence URL of one component of a playback, valid `licenseURLSeconds`.
    func licenseURL(playbackID: String, component: String, now: Date) -> String {
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(settings.licenseURLSeconds)
        return publicURL + "/media/v1/playback/\(playbackID)/license/\(component)?"
            + licenses.query(playbackID: playbackID, component: component, expires: expires)
    }

    /// The live playback a signed URL of `purpose` names, after every check of the URL, in this
    /// order: the signature for this playback and purpose (403 `license_url_invalid`: another
    /// playback's or purpose's URL, a changed expiry), the expiry (403 `license_url_expired`),
    /// the playback live (403 `playback_ended` after release or unknown here).
    func signedPlayback(id: String?, _ purpose: LicenseURLSigner.Purpose, expires expiresText: String?, signature: String?,
                        now: Date) throws(DeliveryFailure) -> PlaybackRecord {
        guard let id, MediaSessionID.isPlaybackID(id), let expiresText, let expires = Int64(expiresText), let signature,
              licenses.isValid(signature, purpose, playbackID: id, expires: expires)
        else { throw .licenseURLRefused(code: "license_url_invalid") }
        guard Double(expires) > now.timeIntervalSince1970 else { throw .licenseURLRefused(code: "license_url_expired") }
        guard let playback = try storeCall({ () throws(StoreError) in try playbacks.live(id, now: now) }) else {
            throw .licenseURLRefused(code: "playback_ended")
        }
        return playback
    }

    /// `POST /media/v1/playback/{id}/license/{component}?expires=&sig=`: the raw SPC in
    /// (`application/octet-stream`), the raw CKC out. No bearer header: the URL's signature
    /// authorizes it (`LicenseURLSigner`). Every check of the URL and its playback comes first
    /// (403 `license_url_invalid`, `license_url_expired`, `playback_ended`); then the FairPlay
    /// module answers as for `key-request` (503 without the SDK bridge), under the playback's
    /// viewer and a media session of this component.
    ///
    /// The answer is the raw CKC and the viewer it was issued to (the playback's), for the log.
    package func license(_ request: LicenseURLRequest, region: String?) throws(DeliveryFailure) -> (ckc: Data, viewer: Identity) {
        let now = clock()
        guard let component = request.component, MediaSessionID.isComponentID(component) else {
            throw .licenseURLRefused(code: "license_url_invalid")
        }
        let playback = try signedPlayback(id: request.playbackID, .fairPlay(component: component), expires: request.expires,
                                          signature: request.signature, now: now)
        let id = playback.id
        let entry = try entry(playback.assetID)
        guard let manifest = entry.manifest, entry.components.contains(component) else {
            throw .licenseURLRefused(code: "license_url_invalid")
        }
        return (try ckc(spc: request.spc, playbackID: id, viewer: playback.identity, entry: entry, manifest: manifest,
                        component: component, region: region), playback.identity)
    }

    /// The CKC of `component` for a raw SPC, under a live playback's viewer: a media session of
    /// this component (no further stream slot), then the media service's key request with the
    /// SPC, as for `key-request` (503 without the SDK bridge).
    func ckc(spc: Data, playbackID id: String, viewer: Identity, entry: CatalogEntry, manifest: Data, component: String,
             region: String?) throws(DeliveryFailure) -> Data {
        guard !spc.isEmpty else { throw .malformed("the body must be the SPC (application/octet-stream)") }
        guard media.fairPlay != nil else { throw .fairPlayUnavailable }

        // One licence of this component at a time (`LicenseSerializer`): its session start would
        // end the session a concurrent call is about to make its key request on.
        return try licenceCalls.serialized(playbackID: id, component: component) { () throws(DeliveryFailure) -> Data in
            let sessionID = try startSession(assetID: entry.assetID, protocol: .fairplay, component: component, playbackID: id,
                                             viewer: viewer)
            // The SPC goes to the media service's key request as a decoded message, with the trusted
            // region of this request: the same steps, audit and answers as a player's key request.
            let keyRequest = MediaKeyRequest(assetID: entry.assetID, sessionID: sessionID, component: component,
                                             manifest: Array(manifest), delivery: .spc(spc), device: nil, region: region)
            do throws(MediaFailure) {
                return try media.keyRequest(.success(keyRequest), viewer: viewer).wrappedKey
            } catch {
                throw .media(error)
            }
        }
    }
}
