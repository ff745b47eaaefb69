// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

/// The HTTP side of the media routes (docs/protocol.md, fps-v2 §10): each handler takes the viewer
/// from the request context, decodes the request into its typed message, calls the media service,
/// and encodes the typed result; every `MediaFailure` gets its status in one table (`answer`).
/// The service itself sees no HTTP type.
struct MediaRouteAdapter: Sendable {
    let service: MediaService
    /// Where a request's region comes from (a header believed only from a trusted proxy).
    let regions: TrustedRegionSource
    /// False with `delivery.signedCertificateURL`: the certificate comes only by a playback's signed URL.
    var openCertificate = true

    // MARK: Handlers

    func certificate(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        guard openCertificate else {
            throw HTTPError(.forbidden, reason: "the certificate comes with a playback's certificateUrl", code: "certificate_url_unsigned")
        }
        guard let certificate = service.configuration.certificate else { throw Self.answer(.noCertificate) }
        return .bytes(certificate, contentType: "application/octet-stream")
    }

    func startSession(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try Self.viewer(&context)
        do {
            let started = try service.startSession(Self.sessionStart(request), viewer: viewer)
            return .json(MediaSessionAnswer(sessionID: started.sessionID, heartbeatSeconds: Int64(started.heartbeatSeconds),
                                            expiresAt: Int64(started.expiresAt.timeIntervalSince1970)).jsonValue)
        } catch {
            throw Self.answer(error)
        }
    }

    func heartbeat(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try Self.viewer(&context)
        // Empty; `{}` is taken as empty too, as players have sent it.
        guard request.body.isEmpty || (try? request.jsonBody()) == .object(JSONObject()) else {
            throw Self.answer(.malformed(code: "heartbeat_body", message: "the heartbeat body must be empty"))
        }
        do {
            let status = try service.heartbeat(sessionID: Self.sessionID(context), viewer: viewer)
            return .json(.object(JSONObject([
                ("status", .string("alive")),
                ("heartbeatSeconds", .number(JSONNumber(status.heartbeatSeconds))),
                ("expiresAt", .number(JSONNumber(Int64(status.expiresAt.timeIntervalSince1970)))),
            ])))
        } catch {
            throw Self.answer(error)
        }
    }

    func endSession(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try Self.viewer(&context)
        do {
            try service.endSession(sessionID: Self.sessionID(context), viewer: viewer)
            return .json(.object(JSONObject([("status", .string("ended"))])))
        } catch {
            throw Self.answer(error)
        }
    }

    func keyRequest(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try Self.viewer(&context)
        let decoded = Result { () throws(MalformedMediaRequest) in
            try Self.keyRequest(request, region: regions.region(for: request))
        }
        do {
            return .json(try service.keyRequest(decoded, viewer: viewer).jsonValue)
        } catch {
            throw Self.answer(error)
        }
    }

    // MARK: The status table

    /// Every failure's answer. Key requests (fps-v2 §10.5): 400 malformed, 403 `manifest refused`
    /// for every §10.7 failure (the cause goes only to the audit log), 403 `platform refused` with
    /// the `MediaDenial` code for a policy denial, 429 rate limit, 503 a dependency down. Session
    /// and playback starts: 429 with the denial's code when the viewer's limits refuse, 503
    /// `store_full` when the store holds its bound of live records.
    static func answer(_ failure: MediaFailure) -> HTTPError {
        switch failure {
        case .malformed(_, let message): HTTPError(.badRequest, reason: message)
        case .tooLarge(_, let message): HTTPError(.payloadTooLarge, reason: message)
        case .noSuchSession: HTTPError(.notFound, reason: "no such session")
        case .noCertificate: HTTPError(.notFound, reason: "no certificate")
        case .rateLimited(let retryAfter):
            HTTPError(.tooManyRequests, reason: "rate limit", headers: ["Retry-After": String(retryAfter)])
        case .refused: HTTPError(.forbidden, reason: "manifest refused")
        case .denied(let denial): HTTPError(.forbidden, reason: "platform refused", code: denial.rawValue)
        case .sessionLimit(let denial):
            HTTPError(.tooManyRequests, reason: Self.limitReasons[denial] ?? "concurrency limit", code: denial.rawValue)
        case .unavailable(let dependency):
            switch dependency {
            case .store: HTTPError(.serviceUnavailable, reason: "state store unavailable")
            case .storeFull: HTTPError(.serviceUnavailable, reason: "state store full", code: dependency.rawValue)
            case .randomGenerator: HTTPError(.serviceUnavailable, reason: "random generator unavailable")
            case .fairPlay, .fairPlayClientInfo, .fairPlayCKC: HTTPError(.serviceUnavailable, reason: "fairplay unavailable")
            case .keyWrap: HTTPError(.serviceUnavailable, reason: "key wrap failed")
            }
        }
    }

    /// The `error` text of each limit a start can meet (`concurrent_streams` otherwise).
    static let limitReasons: [MediaDenial: String] = [
        .tooManySessions: "too many sessions",
        .tooManyPlaybacks: "too many playbacks",
    ]

    // MARK: Decoding

    /// The viewer the authentication middleware verified; none is 401.
    static func viewer(_ context: inout KASRequestContext) throws(HTTPError) -> Identity {
        guard let viewer = context.identity else { throw HTTPError.unauthorized }
        context.viewerHash = viewer.viewerHash
        return viewer
    }

    /// The `{id}` path segment; anything that cannot be a session id names no session.
    static func sessionID(_ context: KASRequestContext) throws(MediaFailure) -> String {
        guard let id = context.parameters["id"], MediaSessionID.isWellFormed(id) else { throw .noSuchSession }
        return id
    }

    /// `POST session/start`: the `MediaSessionStart` message, members exactly its own.
    static func sessionStart(_ request: ServerRequest) -> Result<MediaSessionStart, MalformedMediaRequest> {
        let json: JSONValue
        do {
            json = try request.jsonBody()
        } catch {
            return .failure(MalformedMediaRequest("malformed_request", message: error.reason))   // names the JSON error kind
        }
        let malformed = MalformedMediaRequest("malformed_request", message: "malformed session request")
        guard case .object(let body) = json, body.keys.allSatisfy(MediaSessionStart.members.contains),
              case .string(let asset)? = body["assetId"], CanonicalUUID.isCanonical(asset),
              case .string(let protocolText)? = body["protocol"], let proto = MediaProtocol(rawValue: protocolText)
        else { return .failure(malformed) }
        var start = MediaSessionStart(assetID: asset, protocol: proto)
        var audited = malformed
        audited.asset = asset
        audited.protocol = proto
        if let value = body["component"] {
            guard case .string(let id) = value, MediaSessionID.isComponentID(id) else { return .failure(audited) }
            start.component = id
            audited.component = id
        }
        if let value = body["device"] {
            guard let report = DeviceReport(json: value) else {
                audited.failure = .malformed(code: "malformed_request", message: "malformed device report")
                return .failure(audited)
            }
            start.device = report
        }
        if let value = body["playbackId"] {
            guard case .string(let id) = value, MediaSessionID.isPlaybackID(id) else { return .failure(audited) }
            start.playbackID = id
        }
        return .success(start)
    }

    /// `POST key-request`: the `MediaKeyRequestBody` message, members exactly its own, with
    /// exactly one delivery member and every encoding checked.
    static func keyRequest(_ request: ServerRequest, region: String?) throws(MalformedMediaRequest) -> MediaKeyRequest {
        let message = "malformed key request"
        guard case .object(let body)? = try? request.jsonBody() else { throw MalformedMediaRequest("malformed_body", message: message) }
        guard body.keys.allSatisfy(MediaKeyRequestBody.members.contains) else {
            throw MalformedMediaRequest("unknown_member", message: message)
        }
        guard case .string(let asset)? = body["assetId"], case .string(let sessionID)? = body["sessionId"],
              case .string(let manifestText)? = body["tdfManifest"]
        else { throw MalformedMediaRequest("missing_member", message: message) }
        var audited = MalformedMediaRequest("", message: message, asset: CanonicalUUID.isCanonical(asset) ? asset : nil)
        func malformed(_ code: String) -> MalformedMediaRequest {
            var failure = audited
            failure.failure = .malformed(code: code, message: message)
            return failure
        }
        var component: String?
        if let value = body["component"] {
            guard case .string(let id) = value else { throw malformed("component_type") }
            component = id
            if MediaSessionID.isComponentID(id) { audited.component = id }
        }
        let delivery: MediaKeyRequest.Delivery
        switch (body["spcData"], body["clientPublicKey"]) {
        case (.string(let text)?, nil):
            guard let spc = try? Base64.decode(text), !spc.isEmpty else { throw malformed("spc_encoding") }
            delivery = .spc(spc)
        case (nil, .string(let pem)?):
            guard let key = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) else { throw malformed("client_key") }
            delivery = .clientPublicKey(key)
        default:
            throw malformed("delivery_path")
        }
        audited.protocol = delivery.protocol
        var device: DeviceReport?
        if let value = body["device"] {
            guard let report = DeviceReport(json: value) else { throw malformed("device_report") }
            device = report
        }
        guard let manifest = try? Base64.decode(manifestText) else { throw malformed("manifest_encoding") }
        return MediaKeyRequest(assetID: asset, sessionID: sessionID, component: component, manifest: Array(manifest),
                               delivery: delivery, device: device, region: region)
    }
}
