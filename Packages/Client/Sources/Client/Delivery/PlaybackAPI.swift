import Foundation
import MediaDRMJSON

/// The client of the KAS playback API (docs/delivery.md): start a playback, renew its media
/// URL, release it, and read a delivery description. The bearer token goes only to URLs on the
/// key service's origin; every answer is read by `PlaybackGrant`, `MediaURLRenewal` or
/// `DeliveryDescription`, and a refusal keeps its reason code (`PlaybackError.Refusal`).
public struct PlaybackAPI: Sendable {
    /// The key service origin (`--kas`); `/media/v1/playback` is under it.
    public let keyServiceURL: String
    let client: HTTPClient
    let credential: Credential

    public init(keyServiceURL: String, client: HTTPClient, credential: Credential) {
        var base = keyServiceURL
        while base.hasSuffix("/") { base.removeLast() }
        self.keyServiceURL = base
        self.client = client
        self.credential = credential
    }

    /// `GET` a delivery description (`/v2/media/{assetId}`, its `?token=` kept as given). The
    /// bearer token is added only when the URL is on the key service.
    public func describe(_ url: String) async throws(PlaybackError) -> DeliveryDescription {
        _ = try DeliveryURL.check(url, field: "delivery URL")
        let onKeyService = DeliveryURL.isOnKeyService(url, keyService: keyServiceURL)
        let response = try await ServiceExchange.send(client, TransportRequest(
            url: url, headers: ["Accept": "application/json"], credential: onKeyService ? credential : nil,
            maxResponseBytes: DeliveryJSON.maxBytes), route: "delivery description")
        return try DeliveryDescription(json: response.body)
    }

    /// `POST /media/v1/playback` (or `playbackURL`, which must be on the key service): starts a
    /// playback of `assetID` protected by `drmSystem`, creating its media session.
    public func start(assetID: String, drmSystem: DRMSystem, clientPlatform: String,
                      playbackURL: String? = nil) async throws(PlaybackError) -> PlaybackGrant {
        let url = try playbackURL.map { (text) throws(PlaybackError) in
            try DeliveryURL.checkOnKeyService(text, field: "description's playbackUrl", keyService: keyServiceURL)
        } ?? "\(keyServiceURL)/media/v1/playback"
        let body: JSONValue = .object(JSONObject([
            ("assetId", .string(assetID)), ("drmSystem", .string(drmSystem.playbackName)),
            ("manifestTypes", .array([.string("hls")])), ("clientPlatform", .string(clientPlatform)),
        ]))
        let response = try await ServiceExchange.send(client, TransportRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json"],
            body: JSONWriter.write(body, options: [.sortedKeys]), credential: credential,
            maxResponseBytes: DeliveryJSON.maxBytes), route: "playback")
        return try PlaybackGrant(json: response.body)
    }

    /// `POST /media/v1/playback/{playbackId}/media-url`: a fresh media URL. Blocking (a Range
    /// read that met an expired URL calls it from its reading thread).
    public func renewMediaURL(playbackID: String) throws(PlaybackError) -> MediaURLRenewal {
        guard PlaybackGrant.isSafeID(playbackID) else { throw PlaybackError(.invalidArgument, "the playback id is not a safe path segment") }
        let response = try ServiceExchange.sendSynchronously(client, TransportRequest(
            method: .post, url: "\(keyServiceURL)/media/v1/playback/\(playbackID)/media-url",
            headers: ["Content-Type": "application/json"], body: Data("{}".utf8), credential: credential,
            maxResponseBytes: DeliveryJSON.maxBytes), route: "media URL renewal")
        return try MediaURLRenewal(json: response.body)
    }

    /// `POST heartbeatUrl` (a playback answer's, on the key service): keeps its session alive.
    func heartbeat(_ url: String) async throws(PlaybackError) {
        _ = try await ServiceExchange.send(client, TransportRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json"], body: Data("{}".utf8),
            credential: credential), route: "playback heartbeat")
    }

    /// `DELETE releaseUrl`: ends the playback's sessions and frees its stream slot at once.
    public func release(_ grant: PlaybackGrant) async throws(PlaybackError) {
        let url = try DeliveryURL.checkOnKeyService(grant.releaseURL, field: "playback answer's releaseUrl",
                                                    keyService: keyServiceURL)
        _ = try await ServiceExchange.send(client, TransportRequest(method: .delete, url: url, credential: credential),
                                           route: "playback release")
    }
}
