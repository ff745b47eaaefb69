import Foundation
import MediaDRMJSON

extension DeliveryService {
    /// `GET /v2/media/{assetId}?token=JWT` (a delivery token, `DeliveryTokenKey`) or with a
    /// bearer header: the JW Platform shape (docs/delivery.md#the-delivery-api). It describes and
    /// creates nothing: each source names where to start a playback. The viewer comes from the
    /// delivery token (`viewer(deliveryToken:resource:)`) or the bearer token.
    package func describe(assetID: String?, viewer: Identity, region: String?) throws(DeliveryFailure) -> JSONValue {
        let entry = try entry(assetID)
        let now = clock()
        if let denial = try refusal(for: try policy(of: entry), of: entry, viewer: viewer, region: region, now: now) {
            audit("delivery_describe", viewer: viewer, asset: entry.assetID, decision: .deny, reason: denial.rawValue, now: now)
            media.countDenial(denial.rawValue)
            throw .denied(denial)
        }
        let mediaURL = mediaURL(entry, now: now)
        let file = mediaURL.url
        let playbackURL = publicURL + "/media/v1/playback"
        func source(_ drm: String, _ members: [(String, JSONValue)]) -> JSONValue {
            .object(JSONObject([
                ("file", .string(file)),
                ("type", .string("application/vnd.apple.mpegurl")),
                ("drm", .object(JSONObject([(drm, .object(JSONObject(members)))]))),
            ]))
        }
        // Licence URLs are signed per playback. ClearKey's, none to describe: a player posts to
        // playbackUrl and uses the licenseUrl it gets. FairPlay's processSpcUrl names a playback
        // not started yet, for this viewer, which its first SPC starts (JW's apps post raw SPCs there).
        let described = offers(.fairplay) && entry.profile != .tdfHLS
            ? try processSPCURL(entry, viewer: viewer, now: now) : (processSPC: "", certificate: "")
        let fairPlay = source("fairplay", [("processSpcUrl", .string(described.processSPC)), ("playbackUrl", .string(playbackURL)),
                                           ("certificateUrl", .string(described.certificate))])
        let clearKey = source("org.w3.clearkey", [("licenseUrl", .string(playbackURL)), ("playbackUrl", .string(playbackURL))])
        var sources: [JSONValue]
        switch entry.profile {
        case .tdfHLS: sources = [source("com.arkavo.tdf", [("kasUrl", .string(publicURL)), ("playbackUrl", .string(playbackURL))])]
        case .fpsV2:
            sources = [source("com.arkavo.tdf", [("kasUrl", .string(publicURL)), ("playbackUrl", .string(playbackURL))]), fairPlay]
            if !entry.keyIDs.isEmpty { sources.append(clearKey) }
        case .cmaf: sources = [fairPlay, clearKey]
        }
        if !offers(.fairplay) { sources.removeAll { $0.object?["drm"]?.object?["fairplay"] != nil } }
        sources.shuffle()
        sources += viewSources(entry, playbackURL: playbackURL)
        let mediaID = entry.mediaID?.text ?? entry.assetID
        let posters = entry.posterPath.map { path in
            CatalogPosters.widths.map { (width: $0, src: originFile(CatalogPosters.fileName(width: $0), in: path, expires: mediaURL.expires)) }
        } ?? []
        return .object(JSONObject([
            ("title", .string(entry.title)),
            ("description", .string(entry.description)),
            ("kind", .string("Single Item")),
            // JW's id of this answer: a fresh one each time, naming nothing stored.
            ("feed_instance_id", .string(try Self.makeFeedInstanceID())),
            ("playlist", .array([.object(JSONObject([
                // A JW media id is the short opaque kind; the policy uuid for a title without one.
                ("mediaid", .string(mediaID)),
                ("title", .string(entry.title)),
                ("description", .string(entry.description)),
                ("link", .string(titlePageBaseURL + mediaID)),
                // JW requires both members: without poster frames, an empty string and list.
                ("image", .string(posters.first { $0.width == CatalogPosters.imageWidth }?.src ?? "")),
                ("images", .array(posters.map { poster in
                    .object(JSONObject([("src", .string(poster.src)), ("width", .number(JSONNumber(Int64(poster.width)))),
                                        ("type", .string("image/jpeg"))]))
                })),
                ("duration", .number(JSONNumber(Int64(entry.duration.rounded())))),
                ("pubdate", .number(JSONNumber(Int64((entry.publishedAt ?? now).timeIntervalSince1970.rounded(.down))))),
                ("sources", .array(sources)),
                ("tracks", .array(tracks(entry, expires: mediaURL.expires))),
            ]))])),
        ]))
    }

    /// A title's WebVTT subtitle renditions as JW's `captions` tracks, each `file` signed for the
    /// title's prefix like its media URL and valid as long.
    func tracks(_ entry: CatalogEntry, expires: Date) -> [JSONValue] {
        entry.subtitles.map { subtitle in
            .object(JSONObject([("file", .string(originFile(subtitle.uri, in: entry.mediaPath, expires: expires))),
                                ("kind", .string("captions")), ("label", .string(subtitle.name))]))
        }
    }

    /// A file below a title path on the origin, signed for that prefix until `expires` (plain
    /// without an origin secret, as media URLs are).
    func originFile(_ relative: String, in path: TitlePath, expires: Date) -> String {
        origin?.signedURL(file: relative, in: path, expires: Int64(expires.timeIntervalSince1970.rounded(.down)))
            ?? (originURL ?? "") + path.prefix + relative
    }

    /// Where a title's page is, up to its media id: `delivery.titlePageBaseURL` and `/`, else
    /// the KAS's viewer page with the media id as its fragment.
    var titlePageBaseURL: String {
        settings.titlePageBaseURL.map { $0 + "/" } ?? publicURL + "/player/#"
    }

    /// 16 random bytes, base64url.
    static func makeFeedInstanceID() throws(DeliveryFailure) -> String {
        try makePlaybackID()
    }

    /// The standard players' forms (an fps-v2 file's views, a cmaf title's manifests), after the
    /// DRM sources: one source per form, its `type` the form's (`application/vnd.apple.mpegurl`,
    /// `application/dash+xml`). They are per playback, so a description, which starts none, names
    /// the playback route as `file` and says in `playback` what to post and which member of the
    /// answer to open. Its `drm` object is empty: JW's clients require one in every source, and
    /// one that names no system is picked by none (the DRM sources name one system each).
    func viewSources(_ entry: CatalogEntry, playbackURL: String) -> [JSONValue] {
        PlaybackRequest.ManifestType.allCases.compactMap { type in
            let systems = [DeliveryDRMSystem.clearkey, .fairplay].filter { offers($0) && Self.manifestTypes(entry, $0).contains(type) }
            guard !systems.isEmpty else { return nil }
            return .object(JSONObject([
                ("file", .string(playbackURL)),
                ("type", .string(type == .dash ? "application/dash+xml" : "application/vnd.apple.mpegurl")),
                ("drm", .object(JSONObject())),
                ("playback", .object(JSONObject([
                    ("url", .string(playbackURL)),
                    ("drmSystems", .array(systems.map { .string($0.rawValue) })),
                    ("manifestTypes", .array([.string(type.rawValue)])),
                    ("urlMember", .string(type == .dash ? "dashUrl" : "hlsUrl")),
                ]))),
            ]))
        }
    }

    /// The viewer of a delivery token (`?token=`) for `resource`, the request path it was signed for.
    package func viewer(deliveryToken token: String, resource: String) throws(DeliveryFailure) -> Identity {
        guard let tokenKey else { throw .deliveryTokensNotConfigured }
        return try tokenKey.verify(token, resource: resource, now: clock())
    }
}
