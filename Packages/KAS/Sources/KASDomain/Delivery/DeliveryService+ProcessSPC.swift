import Foundation
import MediaDRMEncoding
import MediaDRMMedia

/// The delivery API's FairPlay `processSpcUrl` (docs/delivery.md#the-delivery-api): JW Platform's
/// apps post every raw SPC of a title to that one URL, with no header, before any playback
/// exists. So the description draws the playback's id and signs a URL naming it, the viewer
/// its delivery token carried and the title; the first SPC starts that playback through
/// `startedPlayback` (the start budget, policy, live-playback cap, stream limit and audit of
/// `POST /media/v1/playback`) and later SPCs of the URL reuse it.
extension DeliveryService {
    /// A ticket is at most this long (a viewer's claims, sealed), checked before it is decoded.
    static let maximumProcessSPCTicketBytes = 8192

    /// `processSpcUrl` for `viewer` and `entry`, valid `delivery.processSPCURLSeconds`:
    /// `/media/v1/playback/{id}/spc?viewer=&expires=&sig=`. `viewer` is the viewer and title
    /// sealed with `PlaybackSeal` (the playback store's format) under a name only the licence URL
    /// key gives, so the URL shows no subject or claim; `sig` signs the id, expiry and ticket.
    /// Beside it the description's `certificateUrl`: the open one, or with
    /// `delivery.signedCertificateURL` `/media/v1/certificate/{id}?viewer=&expires=&sig=` for the
    /// same id, ticket and expiry (`playbackCertificate`).
    func processSPCURL(_ entry: CatalogEntry, viewer: Identity,
                       now: Date) throws(DeliveryFailure) -> (processSPC: String, certificate: String) {
        let playbackID = try Self.makePlaybackID()
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(settings.processSPCURLSeconds)
        let record = PlaybackRecord(id: licenses.code(.processSPCSeal, playbackID: playbackID, expires: expires), identity: viewer,
                                    assetID: entry.assetID, drmSystem: .fairplay, expires: Date(timeIntervalSince1970: Double(expires)))
        let ticket: String
        do {
            ticket = Base64URL.encode(try Base64.decode(try PlaybackSeal.seal(record, storageKey: Self.ticketContext(playbackID))))
        } catch {
            throw .randomGeneratorUnavailable
        }
        let processSPC = publicURL + "/media/v1/playback/\(playbackID)/spc?viewer=\(ticket)&"
            + licenses.query(.processSPC(ticket: ticket), playbackID: playbackID, expires: expires)
        guard settings.signedCertificateURL else { return (processSPC, publicURL + "/media/v1/certificate") }
        return (processSPC, publicURL + "/media/v1/certificate/\(playbackID)?viewer=\(ticket)&"
            + licenses.query(.processSPCCertificate(ticket: ticket), playbackID: playbackID, expires: expires))
    }

    /// The viewer and title a described URL's ticket carries, after its checks, in this order:
    /// the signature of `purpose` for id, expiry and ticket (403 `license_url_invalid`), the
    /// expiry (403 `license_url_expired`), the ticket opening (403 `license_url_invalid`).
    func describedViewer(id: String?, ticket: String?, _ purpose: (String) -> LicenseURLSigner.Purpose, expires expiresText: String?,
                         signature: String?, now: Date) throws(DeliveryFailure) -> (playbackID: String, sealed: PlaybackRecord) {
        let invalid = DeliveryFailure.licenseURLRefused(code: "license_url_invalid")
        guard let id, MediaSessionID.isPlaybackID(id), let ticket, ticket.utf8.count <= Self.maximumProcessSPCTicketBytes,
              let expiresText, let expires = Int64(expiresText), let signature,
              licenses.isValid(signature, purpose(ticket), playbackID: id, expires: expires)
        else { throw invalid }
        guard Double(expires) > now.timeIntervalSince1970 else { throw .licenseURLRefused(code: "license_url_expired") }
        do {
            return (id, try PlaybackSeal.open(Base64.encode(try Base64URL.decode(ticket)),
                                              id: licenses.code(.processSPCSeal, playbackID: id, expires: expires),
                                              storageKey: Self.ticketContext(id), expires: Date(timeIntervalSince1970: Double(expires))))
        } catch {
            throw invalid
        }
    }

    /// The seal's associated data: the URL's playback id, so a ticket moved to another URL does not open.
    static func ticketContext(_ playbackID: String) -> String { "process-spc:" + playbackID }

    /// `POST /media/v1/playback/{id}/spc?viewer=&expires=&sig=`: raw SPC in, raw CKC out. Checks,
    /// before anything else, `describedViewer`'s: signature, expiry, ticket. Then the URL's
    /// playback: live, it is reused; not started yet, the first SPC starts it for the sealed
    /// viewer (refused as a playback start is: 429 `rate limit`, 403 `platform refused`, 429
    /// `concurrent_streams`…); released, 403 `playback_ended` (its id is stored). The SPC names
    /// its component only inside (the SDK reads it), so the title's components are tried in
    /// order, a CKC kept only for the one the SPC asked (`spc_asset_mismatch` moves on).
    package func processSPC(_ request: LicenseURLRequest, region: String?) throws(DeliveryFailure) -> (ckc: Data, viewer: Identity) {
        let now = clock()
        let invalid = DeliveryFailure.licenseURLRefused(code: "license_url_invalid")
        let (id, sealed) = try describedViewer(id: request.playbackID, ticket: request.ticket, { .processSPC(ticket: $0) },
                                               expires: request.expires, signature: request.signature, now: now)
        let viewer = sealed.identity
        let entry = try entry(sealed.assetID)
        guard let manifest = entry.manifest, !entry.components.isEmpty else { throw invalid }
        guard !request.spc.isEmpty else { throw .malformed("the body must be the SPC (application/octet-stream)") }
        guard media.fairPlay != nil else { throw .fairPlayUnavailable }

        try startOnce(playbackID: id, of: entry, viewer: viewer, region: region, now: now)
        for (index, component) in entry.components.enumerated() {
            do throws(DeliveryFailure) {
                return (try ckc(spc: request.spc, playbackID: id, viewer: viewer, entry: entry, manifest: manifest,
                                component: component, region: region), viewer)
            } catch .media(.refused(.spcAssetMismatch)) where index < entry.components.count - 1 {
                continue
            }
        }
        throw invalid
    }

    /// The FairPlay playback `id` of a URL that names it before it starts: live, it is reused;
    /// else started for `viewer` through `startedPlayback` (released: 403 `playback_ended`). The
    /// first SPCs may come together (video and audio): one starts the playback.
    func startOnce(playbackID id: String, of entry: CatalogEntry, viewer: Identity, region: String?,
                   now: Date) throws(DeliveryFailure) {
        try licenceCalls.serialized(playbackID: id, component: "process-spc") { () throws(DeliveryFailure) in
            guard try storeCall({ () throws(StoreError) in try playbacks.live(id, now: now) }) == nil else { return }
            _ = try startedPlayback(PlaybackRequest(assetID: entry.assetID, drmSystem: .fairplay), viewer: viewer, region: region,
                                    playbackID: id)
        }
    }
}
