import Foundation
import MediaDRMJSON
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

    /// The manifest forms a playback of `entry` with `system` is answered: a cmaf title's
    /// manifests (HLS and DASH, with ClearKey or FairPlay); an fps-v2 file's views (docs/formats.md
    /// "Views of fps-v2"), HLS with ClearKey or FairPlay, DASH with ClearKey (FairPlay is HLS
    /// only). None for tdf-hls, a `tdf` playback (our players read the package) or an fps-v2
    /// title catalogued without views (a directory, or added before views existed).
    static func manifestTypes(_ entry: CatalogEntry, _ system: DeliveryDRMSystem) -> Set<PlaybackRequest.ManifestType> {
        guard system != .tdf, entry.manifests[mpdName] != nil else { return [] }
        switch entry.profile {
        case .cmaf: return [.hls, .dash]
        case .fpsV2: return system == .clearkey ? [.hls, .dash] : [.hls]
        case .tdfHLS: return []
        }
    }

    /// `hlsUrl` and `dashUrl`, for the forms asked for that the playback is served with
    /// (`manifestTypes`), each signed until `expires` (Unix seconds): the media URL's expiry.
    func manifestURLMembers(_ entry: CatalogEntry, playbackID: String, system: DeliveryDRMSystem,
                            asked: Set<PlaybackRequest.ManifestType>, expires: Int64) -> [(String, JSONValue)] {
        let served = Self.manifestTypes(entry, system).intersection(asked)
        var members: [(String, JSONValue)] = []
        if served.contains(.dash) {
            members.append(("dashUrl", .string(playbackManifestURL(playbackID: playbackID, name: Self.mpdName, expires: expires))))
        }
        if served.contains(.hls) {
            members.append(("hlsUrl", .string(playbackManifestURL(playbackID: playbackID, name: Self.masterName, expires: expires))))
        }
        return members
    }

    /// The signed URL of one of a playback's manifests, valid until `expires` (Unix seconds):
    /// one signature for every manifest of the playback, as one origin signature covers a title.
    func playbackManifestURL(playbackID: String, name: String, expires: Int64) -> String {
        publicURL + "/media/v1/playback/\(playbackID)/\(name)?" + licenses.query(.manifests, playbackID: playbackID, expires: expires)
    }

    /// `GET /media/v1/playback/{id}/manifest.mpd | master.m3u8 | {rendition}.m3u8?expires=&sig=`
    /// (docs/delivery.md#per-playback-manifests): a cmaf title's manifest or an fps-v2 file's view
    /// (`FPSv2Views`) for this playback, every URI in it absolute and signed until the URL's own
    /// expiry, the MPD's licence URL the playback's ClearKey licence URL. Only the forms the
    /// playback's DRM system is served with (`manifestTypes`) are answered. No header is needed
    /// (players fetch manifests without one): the URL's signature authorizes it, checked as a
    /// licence URL's is.
    package func playbackManifest(_ request: PlaybackManifestRequest)
        throws(DeliveryFailure) -> (body: Data, contentType: String, viewer: Identity)
    {
        let now = clock()
        let playback = try signedPlayback(id: request.playbackID, .manifests, expires: request.expires, signature: request.signature,
                                          now: now)
        let entry = try entry(playback.assetID)
        guard let name = request.name, let stored = entry.manifests[name], let expires = request.expires.flatMap({ Int64($0) }),
              Self.manifestTypes(entry, playback.drmSystem).contains(name == Self.mpdName ? .dash : .hls)
        else { throw .noSuchManifest }
        // A cmaf title's files are signed one by one; an fps-v2 view names the one `.tdf` file.
        let packageURL = entry.profile == .fpsV2 ? signedEntryURL(entry, expires: Date(timeIntervalSince1970: Double(expires))) : nil
        let signed = { (relative: String) -> String in
            if let packageURL { return packageURL }
            if let origin = self.origin { return origin.signedURL(file: relative, in: entry.mediaPath, expires: expires) }
            return (self.originURL ?? "") + entry.mediaPath.prefix + relative
        }
        do {
            switch name {
            case Self.mpdName:
                let licenseURL = clearKeyLicenseURL(playbackID: playback.id, now: now)
                let mpd = try packageURL.map { url throws(PlaybackManifestError) in
                    try PlaybackManifests.viewMPD(stored, packageURL: url, licenseURL: licenseURL)
                } ?? PlaybackManifests.mpd(stored, licenseURL: licenseURL, signed: signed)
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
