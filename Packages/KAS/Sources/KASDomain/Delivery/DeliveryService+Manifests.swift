import Foundation
import MediaDRMMedia

/// A call of a playback's manifest URL (`GET /media/v1/playback/{id}/{name}?expires=&sig=`), as
/// the route read it. Nothing here is trusted until `DeliveryService.playbackManifest` has checked
/// the signature.
package struct PlaybackManifestRequest: Sendable {
    package var playbackID: String?
    package var name: String?
    package var expires: String?
    package var signature: String?

    package init(playbackID: String?, name: String?, expires: String?, signature: String?) {
        self.playbackID = playbackID
        self.name = name
        self.expires = expires
        self.signature = signature
    }
}

extension DeliveryService {
    static let mpdName = "manifest.mpd"
    static let masterName = "master.m3u8"

    /// The signed URL of one of a playback's manifests, valid until `expires` (Unix seconds):
    /// one signature for every manifest of the playback, as one origin signature covers a title.
    func playbackManifestURL(playbackID: String, name: String, expires: Int64) -> String {
        publicURL + "/media/v1/playback/\(playbackID)/\(name)?" + licenses.query(.manifests, playbackID: playbackID, expires: expires)
    }

    /// `GET /media/v1/playback/{id}/manifest.mpd | master.m3u8 | {rendition}.m3u8?expires=&sig=`
    /// (docs/delivery.md#per-playback-manifests): a cmaf title's manifest for this playback, every
    /// URI in it absolute and signed until the URL's own expiry, the MPD's licence URL the
    /// playback's ClearKey licence URL. No header is needed (players fetch manifests without
    /// one): the URL's signature authorizes it, checked as a licence URL's is.
    package func playbackManifest(_ request: PlaybackManifestRequest)
        throws(DeliveryFailure) -> (body: Data, contentType: String, viewer: Identity)
    {
        let now = clock()
        let playback = try signedPlayback(id: request.playbackID, .manifests, expires: request.expires, signature: request.signature,
                                          now: now)
        let entry = try entry(playback.assetID)
        guard entry.profile == .cmaf, let name = request.name, let stored = entry.manifests[name],
              let expires = request.expires.flatMap({ Int64($0) })
        else { throw .noSuchManifest }
        let signed = { (relative: String) -> String in
            if let origin = self.origin { return origin.signedURL(file: relative, in: entry.mediaPath, expires: expires) }
            return (self.originURL ?? "") + entry.mediaPath.prefix + relative
        }
        do {
            switch name {
            case Self.mpdName:
                let mpd = try PlaybackManifests.mpd(stored, licenseURL: clearKeyLicenseURL(playbackID: playback.id, now: now), signed: signed)
                return (mpd, "application/dash+xml", playback.identity)
            case Self.masterName:
                let master = try PlaybackManifests.master(stored) { name in
                    self.playbackManifestURL(playbackID: playback.id, name: name, expires: expires)
                }
                return (master, "application/vnd.apple.mpegurl", playback.identity)
            default:
                return (try PlaybackManifests.media(stored, signed: signed), "application/vnd.apple.mpegurl", playback.identity)
            }
        } catch {
            throw .catalogEntryUnreadable
        }
    }
}
