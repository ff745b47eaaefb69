// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// The KAS media routes over `HTTPClient`: bodies are MediaDRMMedia's protocol messages
/// (`MediaSessionStart`, `MediaKeyRequestBody`, `MediaKeyAnswer`) as JSON with sorted keys, the
/// token only as the bearer credential, no `userId`, answers checked against fps-v2 §10.2 and
/// statuses mapped by §10.5. Server text is never kept: of a refusal, only a known code
/// (`PlaybackError.Refusal`).
public struct KASMediaService: MediaKeyService {
    public let baseURL: String
    private let client: HTTPClient
    let credential: Credential

    /// `baseURL` is the key service origin (the `--kas` URL); routes are under `/media/v1/`.
    public init(baseURL: String, client: HTTPClient, credential: Credential) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.client = client
        self.credential = credential
    }

    public func startSession(_ request: MediaSessionRequest) async throws(PlaybackError) -> MediaSessionGrant {
        guard let path = MediaProtocol(rawValue: request.protocol) else {
            throw PlaybackError(.invalidArgument, "the session protocol must be tdf or fairplay")
        }
        let body = MediaSessionStart(assetID: request.assetID, protocol: path, playbackID: request.playbackID,
                                     component: request.component).jsonValue
        let object = try await post("session/start", body)
        guard let answer = MediaSessionAnswer(json: .object(object)), Self.isSafeSessionID(answer.sessionID) else {
            throw PlaybackError(.malformed, "the session start answer is not a started session with a safe id")
        }
        var heartbeat = 60
        if let value = answer.heartbeatSeconds {
            guard (1...86_400).contains(value) else {
                throw PlaybackError(.malformed, "the session start answer has an unusable heartbeatSeconds")
            }
            heartbeat = Int(value)
        }
        return MediaSessionGrant(sessionID: answer.sessionID, heartbeatSeconds: heartbeat)
    }

    public func requestKey(_ request: KeyRequestParameters) async throws(PlaybackError) -> MediaKeyResponse {
        let body = MediaKeyRequestBody(assetID: request.assetID, component: request.component, sessionID: request.sessionID,
                                       manifest: request.manifest, delivery: .clientPublicKey(request.clientPublicKeyPEM)).jsonValue
        let object = try await post("key-request", body)
        guard let answer = MediaKeyAnswer(json: .object(object)), answer.wrappedKey.count <= 65_536,
              let sessionKey = answer.sessionPublicKey else {
            throw PlaybackError(.malformed, "the key answer is not a success with a wrapped key and a session public key")
        }
        return MediaKeyResponse(wrappedKey: answer.wrappedKey, sessionPublicKeyPEM: sessionKey,
                                leaseSeconds: try Self.lease(seconds: answer.leaseSeconds))
    }

    /// The FairPlay path of the key-request route: the SPC goes as `spcData`, the answer's
    /// `wrappedKey` is the CKC (made by the FairPlay Streaming Server SDK behind the KAS). Used
    /// by the AVContentKeySession delegate on Apple platforms; statuses map as for the open path.
    public func requestCKC(assetID: String, component: String, sessionID: String, manifest: Data,
                           spc: Data) async throws(PlaybackError) -> (ckc: Data, leaseSeconds: Int?) {
        let body = MediaKeyRequestBody(assetID: assetID, component: component, sessionID: sessionID, manifest: manifest,
                                       delivery: .spc(spc)).jsonValue
        let object = try await post("key-request", body)
        guard let answer = MediaKeyAnswer(json: .object(object)) else {
            throw PlaybackError(.malformed, "the key answer is not a success with a CKC")
        }
        return (answer.wrappedKey, try Self.lease(seconds: answer.leaseSeconds))
    }

    public func heartbeat(sessionID: String) async throws(PlaybackError) {
        guard Self.isSafeSessionID(sessionID) else { throw PlaybackError(.invalidArgument, "the session id is not a safe path segment") }
        _ = try await send(TransportRequest(method: .post, url: "\(baseURL)/media/v1/session/\(sessionID)/heartbeat",
                                       headers: ["Content-Type": "application/json"], body: Data("{}".utf8),
                                       credential: credential), route: "heartbeat")
    }

    public func endSession(sessionID: String) async throws(PlaybackError) {
        guard Self.isSafeSessionID(sessionID) else { throw PlaybackError(.invalidArgument, "the session id is not a safe path segment") }
        _ = try await send(TransportRequest(method: .delete, url: "\(baseURL)/media/v1/session/\(sessionID)", credential: credential),
                           route: "session end")
    }

    /// §10.2: an integer from 60 to 86,400 is a lease; below 60 the answer is malformed; above,
    /// or not an integer, means no lease.
    static func lease(_ metadata: JSONValue?) throws(PlaybackError) -> Int? {
        try lease(seconds: MediaKeyAnswer.leaseSeconds(metadata: metadata))
    }

    static func lease(seconds: Int64?) throws(PlaybackError) -> Int? {
        guard let seconds else { return nil }
        if seconds < 60 { throw PlaybackError(.malformed, "the key answer's lease is shorter than 60 seconds") }
        return seconds <= 86_400 ? Int(seconds) : nil
    }

    /// One path segment of the base64url alphabet, so it can never change the route.
    static func isSafeSessionID(_ id: String) -> Bool {
        (1...256).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    func post(_ route: String, _ body: JSONValue) async throws(PlaybackError) -> JSONObject {
        let response = try await send(TransportRequest(method: .post, url: "\(baseURL)/media/v1/\(route)",
                                                  headers: ["Content-Type": "application/json"],
                                                  body: JSONWriter.write(body, options: [.sortedKeys]),
                                                  credential: credential, maxResponseBytes: 1 << 20), route: route)
        guard let value = try? JSONParser.parse(response.body), case .object(let object) = value else {
            throw PlaybackError(.malformed, "the key service answered \(route) with a body that is not a JSON object")
        }
        return object
    }

    /// The FairPlay application certificate (`GET /media/v1/certificate`), fetched WITHOUT the
    /// credential; nil when the service has none configured (404).
    public func certificate() async throws(PlaybackError) -> Data? {
        let request = TransportRequest(url: "\(baseURL)/media/v1/certificate", maxResponseBytes: 1 << 20,
                                  extraAcceptedStatuses: [404])
        let response = try await send(request, route: "certificate")
        return response.status == 404 ? nil : response.body
    }

    /// Statuses whose answer may say why this viewer was refused (`PlaybackError.Refusal`).
    static let refusalStatuses: Set<Int> = [401, 403, 429]

    func send(_ request: TransportRequest, route: String) async throws(PlaybackError) -> TransportResponse {
        var request = request
        request.extraAcceptedStatuses.formUnion(Self.refusalStatuses)
        let response: TransportResponse
        do {
            response = try await client.send(request)
        } catch {
            throw PlaybackError.from(error, route: route)
        }
        return try Self.refuseIfRefusal(response, route: route)
    }

    /// The answer, unless it is a refusal (`refusalStatuses`), which is thrown with the code it
    /// carried. Shared with the tdf-hls media rewrap (`OpenTDFRewrapClient`).
    static func refuseIfRefusal(_ response: TransportResponse, route: String) throws(PlaybackError) -> TransportResponse {
        guard refusalStatuses.contains(response.status) else { return response }
        throw PlaybackError.keyService(status: response.status, route: route, refusal: PlaybackError.Refusal(
            status: response.status, headers: response.headers, body: response.body))
    }
}
