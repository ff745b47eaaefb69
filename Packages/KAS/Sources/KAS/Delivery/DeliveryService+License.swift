import Foundation
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

extension DeliveryService {
    /// The signed licence URL of one component of a playback, valid `licenseURLSeconds`.
    func licenseURL(playbackID: String, component: String, now: Date) -> String {
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(settings.licenseURLSeconds)
        return publicURL + "/media/v1/playback/\(playbackID)/license/\(component)?"
            + licenses.query(playbackID: playbackID, component: component, expires: expires)
    }

    /// `POST /media/v1/playback/{id}/license/{component}?expires=&sig=`: the raw SPC in
    /// (`application/octet-stream`), the raw CKC out. No bearer header: the URL's signature
    /// authorizes it (`LicenseURLSigner`). Every check of the URL and its playback comes first
    /// (403 `license_url_invalid`, `license_url_expired`, `playback_ended`); then the FairPlay
    /// module answers as for `key-request` (503 without the SDK bridge), under the playback's
    /// viewer and a media session of this component.
    public func license(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let now = clock()
        guard let id = context.parameters["id"], MediaSessionID.isPlaybackID(id),
              let component = context.parameters["component"], MediaSessionID.isComponentID(component),
              let expiresText = request.queryValue("expires"), let expires = Int64(expiresText),
              let sig = request.queryValue("sig"),
              licenses.isValid(sig, playbackID: id, component: component, expires: expires)
        else { throw HTTPError(.forbidden, reason: "licence URL refused", code: "license_url_invalid") }
        guard Double(expires) > now.timeIntervalSince1970 else {
            throw HTTPError(.forbidden, reason: "licence URL refused", code: "license_url_expired")
        }
        guard let playback = try playbackStore({ () throws(StoreError) in try playbacks.live(id, now: now) }) else {
            throw HTTPError(.forbidden, reason: "licence URL refused", code: "playback_ended")
        }
        let entry = try entry(playback.assetID)
        guard let manifest = entry.manifest, entry.components.contains(component) else {
            throw HTTPError(.forbidden, reason: "licence URL refused", code: "license_url_invalid")
        }
        guard !request.body.isEmpty else { throw HTTPError(.badRequest, reason: "the body must be the SPC (application/octet-stream)") }
        guard media.fairPlay != nil else { throw HTTPError(.serviceUnavailable, reason: "fairplay unavailable") }

        context.identity = playback.identity
        let sessionID = try startSession(assetID: entry.assetID, protocol: .fairplay, component: component, playbackID: id,
                                         like: request, context: &context)
        let answer = try callMedia(MediaRouteAdapter(service: media).keyRequest, path: "/media/v1/key-request", body: [
            ("assetId", .string(entry.assetID)),
            ("sessionId", .string(sessionID)),
            ("component", .string(component)),
            ("tdfManifest", .string(Base64.encode(manifest))),
            ("spcData", .string(Base64.encode(request.body))),
        ], like: request, context: &context)
        guard case .string(let ckcText)? = answer["wrappedKey"], let ckc = try? Base64.decode(ckcText) else {
            throw HTTPError(.internalServerError, reason: "internal error")
        }
        return .bytes(ckc, contentType: "application/octet-stream")
    }
}
