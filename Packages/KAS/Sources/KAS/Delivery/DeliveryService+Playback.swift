import Foundation
import MediaDRMJSON
import MediaDRMMedia

extension DeliveryService {
    static let playbackMembers: Set<String> = ["assetId", "drmSystem", "manifestTypes", "clientPlatform"]

    /// `POST /media/v1/playback` (bearer). 400 malformed, 404 unknown asset, 403 a refused viewer
    /// (with the `MediaDenial` code, and no URL), 429 the stream limit, else 200 with the
    /// playback description (docs/delivery.md#playbacks).
    public func startPlayback(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        guard case .object(let body) = try request.jsonBody(), body.keys.allSatisfy(Self.playbackMembers.contains),
              case .string(let systemText)? = body["drmSystem"], let system = DeliveryDRMSystem(rawValue: systemText)
        else { throw HTTPError(.badRequest, reason: "malformed playback request") }
        if let value = body["manifestTypes"] {
            guard case .array(let types) = value, types.contains(.string("hls")) else {
                throw HTTPError(.badRequest, reason: "manifestTypes must include hls, the only manifest type served")
            }
        }
        if let value = body["clientPlatform"] {
            guard case .string(let platform) = value, (1...32).contains(platform.utf8.count) else {
                throw HTTPError(.badRequest, reason: "malformed playback request")
            }
        }
        let entry = try entry(body["assetId"]?.string)
        if system != .tdf, entry.profile != .fpsV2 {
            throw HTTPError(.badRequest, reason: "this asset is tdf-hls: ask for drmSystem tdf")
        }
        let now = clock()
        let policy = try policy(of: entry)
        if let denial = try refusal(for: policy, viewer: viewer, request: request, now: now) {
            audit("playback_start", viewer: viewer, asset: entry.assetID, decision: .deny, reason: denial.rawValue, now: now)
            media.countDenial(denial.rawValue)
            throw HTTPError(.forbidden, reason: "platform refused", code: denial.rawValue)
        }
        // The session start enforces the stream limit the media store learned from a verified
        // manifest; the catalog's policy was verified when it was added, so it teaches it first.
        do {
            let limit = policy.rules?.maxConcurrentStreams
            if try media.store.assetStreamLimit(asset: entry.assetID) != limit {
                try media.store.setAssetStreamLimit(asset: entry.assetID, limit: limit, now: now)
            }
        } catch {
            throw HTTPError(.serviceUnavailable, reason: "state store unavailable")
        }
        let playbackID = try Self.makePlaybackID()
        let sessionID = try startSession(assetID: entry.assetID, protocol: system == .fairplay ? .fairplay : .tdf, component: nil,
                                         playbackID: playbackID, viewer: viewer)
        let signed = mediaURL(entry, now: now)
        guard let identity = context.identity else { throw HTTPError.unauthorized }
        playbacks.insert(PlaybackRegistry.Playback(id: playbackID, identity: identity, assetID: entry.assetID,
                                                   drmSystem: system, expires: signed.expires.addingTimeInterval(PlaybackRegistry.renewalGrace)),
                         now: now)
        audit("playback_start", viewer: viewer, asset: entry.assetID, decision: .allow, reason: "started", now: now)

        var members: [(String, JSONValue)] = [
            ("playbackId", .string(playbackID)),
            ("assetId", .string(entry.assetID)),
            ("title", .string(entry.title)),
            ("drmSystem", .string(system.rawValue)),
            ("mediaUrl", .string(signed.url)),
            ("mediaUrlExpiresAt", .string(Self.timestamp(signed.expires))),
        ]
        switch system {
        case .fairplay:
            let urls = entry.components.map { ($0, licenseURL(playbackID: playbackID, component: $0, now: now)) }
            members.append(("certificateUrl", .string(publicURL + "/media/v1/certificate")))
            members.append(("licenseUrl", .string(urls.first?.1 ?? "")))
            members.append(("licenseUrls", .object(JSONObject(urls.map { ($0.0, JSONValue.string($0.1)) }))))
        case .tdf:
            members.append(("licenseUrl", .string(publicURL)))
        case .clearkey:
            members.append(("licenseUrl", .string(publicURL + "/media/v1/key-request")))
        }
        members += [
            ("sessionId", .string(sessionID)),
            ("heartbeatUrl", .string(publicURL + "/media/v1/session/\(sessionID)/heartbeat")),
            ("releaseUrl", .string(publicURL + "/media/v1/playback/\(playbackID)")),
            ("expiresAt", .string(Self.timestamp(signed.expires.addingTimeInterval(PlaybackRegistry.renewalGrace)))),
        ]
        return .json(.object(JSONObject(members)))
    }

    /// `DELETE /media/v1/playback/{id}` (bearer): ends every media session of the playback now
    /// (its stream-limit slot is free at once) and refuses its licence URLs and renewals from
    /// then on. 404 when it is not this viewer's live playback.
    public func releasePlayback(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        let now = clock()
        guard let id = context.parameters["id"], MediaSessionID.isPlaybackID(id),
              let playback = playbacks.release(id, viewer: viewer.storeKey, now: now)
        else { throw HTTPError(.notFound, reason: "no such playback") }
        let ended: Int
        do {
            // The media store keys a playback the player named as "client:<id>" (`MediaService.startSession`).
            ended = try media.store.endPlaybackSessions(viewer: viewer.storeKey, asset: playback.assetID, playback: "client:" + id, now: now)
        } catch {
            throw HTTPError(.serviceUnavailable, reason: "state store unavailable")
        }
        audit("playback_release", viewer: viewer, asset: playback.assetID, decision: .allow, reason: "released", now: now)
        for _ in 0..<ended {
            audit("session_end", viewer: viewer, asset: playback.assetID, decision: .allow, reason: "playback_released", now: now)
        }
        return ServerResponse(status: .noContent)
    }

    /// `POST /media/v1/playback/{id}/media-url` (bearer): a fresh signed media URL for a live
    /// playback of this viewer; the playback lives `PlaybackRegistry.renewalGrace` past its newest URL.
    public func renewMediaURL(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        let now = clock()
        guard let id = context.parameters["id"], MediaSessionID.isPlaybackID(id),
              let playback = playbacks.live(id, now: now), playback.viewer.storeKey == viewer.storeKey
        else { throw HTTPError(.notFound, reason: "no such playback") }
        let entry = try entry(playback.assetID)
        let signed = mediaURL(entry, now: now)
        playbacks.extend(id, to: signed.expires.addingTimeInterval(PlaybackRegistry.renewalGrace))
        return .json(.object(JSONObject([
            ("mediaUrl", .string(signed.url)),
            ("mediaUrlExpiresAt", .string(Self.timestamp(signed.expires))),
        ])))
    }
}
