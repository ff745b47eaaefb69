import Foundation

extension DeliveryService {
    /// A FairPlay playback's `certificateUrl`: the open `/media/v1/certificate`, or, with
    /// `delivery.signedCertificateURL`, `/media/v1/certificate/{playbackId}?expires=&sig=`, valid
    /// `licenseURLSeconds` like the licence URL the app posts its SPC to next.
    func certificateURL(playbackID: String, now: Date) -> String {
        guard settings.signedCertificateURL else { return publicURL + "/media/v1/certificate" }
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(settings.licenseURLSeconds)
        return publicURL + "/media/v1/certificate/\(playbackID)?" + licenses.query(.certificate, playbackID: playbackID, expires: expires)
    }

    /// `GET /media/v1/certificate/{playbackId}?expires=&sig=`: the FairPlay application
    /// certificate (DER) for a live playback, after the signed URL's checks (403
    /// `license_url_invalid`, `license_url_expired`, `playback_ended`). With `viewer=` (the
    /// delivery API's `certificateUrl`, `processSPCURL`) it names a playback its processSpcUrl
    /// starts later: the ticket's checks instead (`describedViewer`), so it answers until the
    /// URL expires, before the playback starts and after it ended. The answer names the
    /// playback's viewer for the log.
    package func playbackCertificate(id: String?, ticket: String? = nil, expires: String?,
                                     signature: String?) throws(DeliveryFailure) -> (certificate: Data, viewer: Identity) {
        let viewer: Identity
        if ticket != nil {
            viewer = try describedViewer(id: id, ticket: ticket, { .processSPCCertificate(ticket: $0) }, expires: expires,
                                         signature: signature, now: clock()).sealed.identity
        } else {
            viewer = try signedPlayback(id: id, .certificate, expires: expires, signature: signature, now: clock()).identity
        }
        guard let certificate = media.configuration.certificate else { throw .fairPlayUnavailable }
        return (certificate, viewer)
    }
}
