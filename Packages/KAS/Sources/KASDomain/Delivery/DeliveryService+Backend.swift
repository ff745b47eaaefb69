import Foundation
import MediaDRMJSON

extension DeliveryService {
    /// The configured backend client this Basic credential is; `backendCredentialRefused` for a
    /// missing, unknown or wrong one (one fixed answer for all).
    package func backendClient(id: String, secret: [UInt8]) throws(DeliveryFailure) -> BackendClient {
        guard let client = backendCredentials.client(id: id, secret: secret) else { throw .backendCredentialRefused }
        return client
    }

    /// `POST /media/v1/backend/playback` (docs/delivery.md "DRM-X's backend call"): a customer
    /// backend starts a playback for the viewer it vouches for. After the client's own budget
    /// (`callsPerMinute`, 429 with Retry-After) and the body (`BackendPlaybackRequest`, 400), the
    /// playback is started by `startPlayback`'s steps (`startedPlayback`), with every check, limit and audit record of
    /// `POST /media/v1/playback`. The answer is that playback's with DRM-X's names: the app holds
    /// no bearer, so its release URL is signed (`POST …/release?expires=&sig=`, valid while the
    /// playback lives) and the bearer-only heartbeat URL is left out; every other URL carries its
    /// own signature. The answer names the viewer for the log.
    package func startBackendPlayback(_ body: JSONValue, client: BackendClient,
                                      region: String?) throws(DeliveryFailure) -> (answer: JSONValue, viewer: Identity) {
        let now = clock()
        let decision = try storeCall { () throws(StoreError) in
            try media.store.consumeRateToken(key: "backend:" + client.id, perMinute: client.callsPerMinute, now: now)
        }
        if case .limited(let retryAfter) = decision { throw .media(.rateLimited(retryAfter: retryAfter)) }
        let request = try BackendPlaybackRequest(json: body, issuer: client.issuer)
        let started = try startedPlayback(request.playback, viewer: request.viewer, region: region)
        var answer = started.answer
        let playbackID = started.playbackID
        let expires = Int64(started.expires.timeIntervalSince1970.rounded(.down))
        answer["heartbeatUrl"] = nil
        answer["releaseUrl"] = .string(publicURL + "/media/v1/playback/\(playbackID)/release?"
                                       + licenses.query(.release, playbackID: playbackID, expires: expires))
        answer["contentType"] = .string(request.playback.live == true ? "live" : "vod")
        if let hls = answer["hlsUrl"] { answer["hlsManifestUrl"] = hls }
        return (.object(answer), request.viewer)
    }

    /// `POST /media/v1/playback/{id}/release?expires=&sig=`: the release an app without a bearer
    /// makes with the URL its backend's call answered; the signed URL's checks first (403), then
    /// `releasePlayback` for the playback's viewer.
    package func releaseSignedPlayback(id: String?, expires: String?, signature: String?) throws(DeliveryFailure) -> Identity {
        let playback = try signedPlayback(id: id, .release, expires: expires, signature: signature, now: clock())
        try releasePlayback(id: playback.id, viewer: playback.identity)
        return playback.identity
    }
}
