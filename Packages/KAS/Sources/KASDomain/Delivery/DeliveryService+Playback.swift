import Foundation
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

extension DeliveryService {
    /// `POST /media/v1/playback` (bearer): the playback description (docs/delivery.md#playbacks)
    /// with a signed media URL and a media session, after the viewer's playback-start budget
    /// (429 `rate limit` with Retry-After, before anything else is read) and the title's policy
    /// for this viewer. A refused viewer gets its `MediaDenial` and no URL; the stream limit is
    /// the session start's.
    package func startPlayback(_ request: PlaybackRequest, viewer: Identity, region: String?) throws(DeliveryFailure) -> JSONValue {
        .object(try startedPlayback(request, viewer: viewer, region: region).answer)
    }

    /// `startPlayback`'s steps, with the stored playback's id and end (`expiresAt`) beside its
    /// answer, for the routes that add URLs of their own (`startBackendPlayback`); `playbackID`
    /// is the id drawn beforehand by a URL that names its playback before it starts
    /// (`processSPC`), else a fresh one.
    func startedPlayback(_ request: PlaybackRequest, viewer: Identity, region: String?,
                         playbackID drawn: String? = nil) throws(DeliveryFailure) -> (answer: JSONObject, playbackID: String, expires: Date) {
        let now = clock()
        do {
            try media.consumeRateToken(.playbackStart, viewer: viewer, now: now)
        } catch {
            throw refusedStart(error, viewer: viewer, asset: nil, now: now)
        }
        let system = request.drmSystem
        let entry = try entry(request.assetID)
        // FairPlay switched off (no `fairplay` section): no FairPlay playback takes a stream slot
        // for a licence URL that could only answer 503.
        guard offers(system) else { throw .fairPlayNotOffered }
        try Self.checkServed(request, entry: entry)
        let policy = try policy(of: entry)
        if let denial = try refusal(for: policy, of: entry, viewer: viewer, region: region, now: now) {
            audit("playback_start", viewer: viewer, asset: entry.assetID, decision: .deny, reason: denial.rawValue, now: now)
            media.countDenial(denial.rawValue)
            throw .denied(denial)
        }
        // The session start enforces the stream limit the media store learned from a verified
        // manifest; the catalog's policy was verified when it was added, so it teaches it first.
        try storeCall { () throws(StoreError) in
            let limit = policy.rules?.maxConcurrentStreams
            if try media.store.assetStreamLimit(asset: entry.assetID) != limit {
                try media.store.setAssetStreamLimit(asset: entry.assetID, limit: limit, now: now)
            }
        }
        // The playback first, under the viewer's cap and the store's bounds (one atomic step);
        // then its session, under the stream limit. A refused session takes the playback away.
        let playbackID: String
        if let drawn { playbackID = drawn } else { playbackID = try Self.makePlaybackID() }
        let signed = mediaURL(entry, now: now)
        let record = PlaybackRecord(id: playbackID, identity: viewer, assetID: entry.assetID, drmSystem: system,
                                    expires: signed.expires.addingTimeInterval(PlaybackRecord.renewalGrace))
        let inserted = try storeCall { () throws(StoreError) in
            try playbacks.insert(record, maxLivePerViewer: settings.maxLivePlaybacksPerViewer, now: now)
        }
        switch inserted {
        case .inserted: break
        case .tooManyPlaybacks: throw refusedStart(.sessionLimit(.tooManyPlaybacks), viewer: viewer, asset: entry.assetID, now: now)
        case .storeFull: throw refusedStart(.unavailable(.storeFull), viewer: viewer, asset: entry.assetID, now: now)
        // Only an id drawn beforehand can be stored already: its URL's playback was released.
        case .duplicate: throw .licenseURLRefused(code: "playback_ended")
        }
        let sessionID: String
        do {
            sessionID = try startSession(assetID: entry.assetID, protocol: system == .fairplay ? .fairplay : .tdf, component: nil,
                                         playbackID: playbackID, viewer: viewer)
        } catch {
            try? playbacks.remove(playbackID)
            throw error
        }
        maintainPlaybacks(now: now)
        audit("playback_start", viewer: viewer, asset: entry.assetID, decision: .allow, reason: "started", now: now)

        var members: [(String, JSONValue)] = [
            ("playbackId", .string(playbackID)),
            ("assetId", .string(entry.assetID)),
        ] + entry.mediaIDMember + [
            ("title", .string(entry.title)),
            ("drmSystem", .string(system.rawValue)),
            ("mediaUrl", .string(signed.url)),
            ("mediaUrlExpiresAt", .string(Self.timestamp(signed.expires))),
        ]
        if let live = entry.live { members.append(("live", live.jsonValue)) }
        switch system {
        case .fairplay:
            let urls = entry.components.map { ($0, licenseURL(playbackID: playbackID, component: $0, now: now)) }
            members.append(("certificateUrl", .string(certificateURL(playbackID: playbackID, now: now))))
            members.append(("licenseUrl", .string(urls.first?.1 ?? "")))
            members.append(("licenseUrls", .object(JSONObject(urls.map { ($0.0, JSONValue.string($0.1)) }))))
        case .tdf:
            members.append(("licenseUrl", .string(publicURL)))
        case .clearkey:
            members.append(("licenseUrl", .string(clearKeyLicenseURL(playbackID: playbackID, now: now))))
            members.append(("keyIds", .object(JSONObject(entry.keyIDs.map { ($0.component, JSONValue.string(Hex.encode($0.keyID))) }))))
        }
        // Standard players: the playback's own manifests or views, every URI in them signed.
        members += manifestURLMembers(entry, playbackID: playbackID, system: system, asked: request.manifestTypes,
                                      expires: Int64(signed.expires.timeIntervalSince1970.rounded(.down)))
        members += [
            ("sessionId", .string(sessionID)),
            ("heartbeatUrl", .string(publicURL + "/media/v1/session/\(sessionID)/heartbeat")),
            ("releaseUrl", .string(publicURL + "/media/v1/playback/\(playbackID)")),
            ("expiresAt", .string(Self.timestamp(record.expires))),
        ]
        return (JSONObject(members), playbackID, record.expires)
    }

    /// The DRM systems and manifest forms each profile is served with: tdf-hls `tdf`; fps-v2
    /// `fairplay`, `tdf` and `clearkey`; cmaf `fairplay` and `clearkey` (its `manifest.json` is
    /// fps-v2's model); `dash` as `manifestTypes(_:_:)` says. `clearkey` needs the key ids the catalog
    /// read (an fps-v2 entry added before it kept them must be added again).
    static func checkServed(_ request: PlaybackRequest, entry: CatalogEntry) throws(DeliveryFailure) {
        if let live = request.live, live != (entry.live != nil) {
            throw .malformed(live ? "contentType live names a title that is not live: ask for vod"
                                  : "this title is live: ask for contentType live")
        }
        switch entry.profile {
        case .tdfHLS:
            guard request.drmSystem == .tdf else { throw .malformed("this asset is tdf-hls: ask for drmSystem tdf") }
        case .fpsV2: break
        case .cmaf:
            guard request.drmSystem != .tdf else { throw .malformed("this asset is cmaf: ask for drmSystem clearkey or fairplay") }
        }
        if request.manifestTypes.contains(.dash), !manifestTypes(entry, request.drmSystem).contains(.dash) {
            throw .malformed(entry.profile == .fpsV2
                ? "dash is served for this fps-v2 asset with drmSystem clearkey, once it is catalogued from its .tdf file with its views (kas assets add again)"
                : "dash is served for cmaf and fps-v2 assets only")
        }
        if request.drmSystem == .clearkey, entry.keyIDs.isEmpty {
            throw .malformed("this asset was catalogued without its key ids: add it again (kas assets add) for drmSystem clearkey")
        }
    }

    /// A playback start the viewer's budget or bounds refused, audited (`playback_start`, the
    /// failure's code) and counted as the media routes count their refusals.
    func refusedStart(_ failure: MediaFailure, viewer: Identity, asset: String?, now: Date) -> DeliveryFailure {
        audit("playback_start", viewer: viewer, asset: asset, decision: failure.decision, reason: failure.auditReason, now: now)
        media.countDenial(failure.auditReason)
        return .media(failure)
    }

    /// `DELETE /media/v1/playback/{id}` (bearer): releases the playback and ends every media
    /// session of it in one store step (its stream-limit slot and its place under the viewer's
    /// playback cap are free at once), and refuses its licence URLs and renewals from then on.
    /// `noSuchPlayback` when it is not this viewer's live playback.
    package func releasePlayback(id: String?, viewer: Identity) throws(DeliveryFailure) {
        let now = clock()
        guard let id, MediaSessionID.isPlaybackID(id),
              let released = try storeCall({ () throws(StoreError) in try playbacks.release(id, viewer: viewer.storeKey, now: now) })
        else { throw .noSuchPlayback }
        let asset = released.playback.assetID
        audit("playback_release", viewer: viewer, asset: asset, decision: .allow, reason: "released", now: now)
        for _ in 0..<released.endedSessions {
            audit("session_end", viewer: viewer, asset: asset, decision: .allow, reason: "playback_released", now: now)
        }
    }

    /// `POST /media/v1/playback/{id}/media-url` (bearer): a fresh signed media URL for a live
    /// playback of this viewer; the playback lives `PlaybackRecord.renewalGrace` past its newest URL.
    /// The title's policy is run again for the token presented now (entitlement, rental and its
    /// playback window, region), as at the start: a renewal is a new grant of the bytes, so a
    /// rental that lapsed or an entitlement that was withdrawn since the start is refused with
    /// its reason, and the origin gets no new URL.
    package func renewMediaURL(id: String?, viewer: Identity, region: String?) throws(DeliveryFailure) -> JSONValue {
        let now = clock()
        guard let id, MediaSessionID.isPlaybackID(id),
              let playback = try storeCall({ () throws(StoreError) in try playbacks.live(id, now: now) }),
              playback.viewer.storeKey == viewer.storeKey
        else { throw .noSuchPlayback }
        let entry = try entry(playback.assetID)
        if let denial = try refusal(for: try policy(of: entry), of: entry, viewer: viewer, region: region, now: now) {
            audit("playback_renewal", viewer: viewer, asset: entry.assetID, decision: .deny, reason: denial.rawValue, now: now)
            media.countDenial(denial.rawValue)
            throw .denied(denial)
        }
        let signed = mediaURL(entry, now: now)
        try storeCall { () throws(StoreError) in
            try playbacks.extend(id, to: signed.expires.addingTimeInterval(PlaybackRecord.renewalGrace), now: now)
        }
        // The views' URLs carry the media URL's expiry, so they are renewed with it: every form
        // the playback is served with (the start's `manifestTypes` is not kept).
        return .object(JSONObject([
            ("mediaUrl", .string(signed.url)),
            ("mediaUrlExpiresAt", .string(Self.timestamp(signed.expires))),
        ] + manifestURLMembers(entry, playbackID: id, system: playback.drmSystem, asked: Set(PlaybackRequest.ManifestType.allCases),
                               expires: Int64(signed.expires.timeIntervalSince1970.rounded(.down)))))
    }
}
