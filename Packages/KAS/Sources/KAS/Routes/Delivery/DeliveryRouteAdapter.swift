import Foundation
import KASDomain
import KASHTTP
import MediaDRMJSON

/// The HTTP side of the delivery routes (docs/delivery.md), as `MediaRouteAdapter` is of the media
/// routes: each handler takes the viewer from the request context (or the delivery token), reads
/// the request into the service's values (the region from `TrustedRegionSource`), calls
/// `DeliveryService`, and encodes its answer; every `DeliveryFailure` gets its status in one table
/// (`answer`). The service itself sees no HTTP type.
struct DeliveryRouteAdapter: Sendable {
    let service: DeliveryService
    let regions: TrustedRegionSource
    /// The bearer-token check of `GET /v2/media/{assetId}` when no delivery token is given.
    let authentication: any HTTPMiddleware<KASRequestContext>

    // MARK: Handlers

    func startPlayback(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        // A body that is not strict JSON keeps the server's 400 naming the JSON error kind.
        let json = try request.jsonBody()
        do {
            return .json(try service.startPlayback(PlaybackRequest(json: json), viewer: viewer, region: regions.region(for: request)))
        } catch {
            throw Self.answer(error)
        }
    }

    /// `POST /media/v1/backend/playback`: a customer backend, authenticated by its Basic
    /// credential (never a viewer's bearer), starts a playback for its viewer. The log names the
    /// viewer the playback is for; neither the credential nor the body is logged.
    func startBackendPlayback(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        do {
            guard let credential = BasicCredential(authorizationHeaderValues: request.headers.values(for: "Authorization")) else {
                throw DeliveryFailure.backendCredentialRefused
            }
            let client = try service.backendClient(id: credential.id, secret: credential.secret)
            let json = try request.jsonBody()
            let started: (answer: JSONValue, viewer: Identity)
            do {
                started = try service.startBackendPlayback(json, client: client, region: regions.region(for: request))
            } catch {
                // The viewer the backend vouched for names the refusal in the log, as a bearer's would.
                if let viewer = try? BackendPlaybackRequest.identity(json.object?["viewer"], issuer: client.issuer) {
                    context.identity = viewer
                    context.viewerHash = viewer.viewerHash
                }
                throw error
            }
            context.identity = started.viewer
            context.viewerHash = started.viewer.viewerHash
            return .json(started.answer)
        } catch let error as HTTPError {
            throw error
        } catch let error as DeliveryFailure {
            throw Self.answer(error)
        } catch {
            throw HTTPError.internalError
        }
    }

    /// The signed release an app makes (the backend call's `releaseUrl`): no bearer header.
    func releaseSignedPlayback(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        do {
            let viewer = try service.releaseSignedPlayback(id: context.parameters["id"], expires: request.queryValue("expires"),
                                                           signature: request.queryValue("sig"))
            context.identity = viewer
            context.viewerHash = viewer.viewerHash
            return ServerResponse(status: .noContent)
        } catch {
            throw Self.answer(error)
        }
    }

    /// The FairPlay certificate of one playback (`delivery.signedCertificateURL`): the URL's signature authorizes it.
    func playbackCertificate(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        do {
            let answer = try service.playbackCertificate(id: context.parameters["id"], ticket: request.queryValue("viewer"),
                                                         expires: request.queryValue("expires"), signature: request.queryValue("sig"))
            context.identity = answer.viewer
            context.viewerHash = answer.viewer.viewerHash
            return .bytes(answer.certificate, contentType: "application/octet-stream")
        } catch {
            throw Self.answer(error)
        }
    }

    /// `GET /media/v1/catalog?limit=&after=`: the titles this viewer may watch (docs/delivery.md).
    func listCatalog(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            var response = ServerResponse.json(try service.listCatalog(viewer: viewer, region: regions.region(for: request),
                                                                       after: request.queryValue("after"),
                                                                       limit: request.queryValue("limit")))
            // The list is this viewer's: no shared cache may keep it.
            response.headers["Cache-Control"] = "private, no-store"
            return response
        } catch {
            throw Self.answer(error)
        }
    }

    func releasePlayback(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            try service.releasePlayback(id: context.parameters["id"], viewer: viewer)
            return ServerResponse(status: .noContent)
        } catch {
            throw Self.answer(error)
        }
    }

    func renewMediaURL(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            return .json(try service.renewMediaURL(id: context.parameters["id"], viewer: viewer, region: regions.region(for: request)))
        } catch {
            throw Self.answer(error)
        }
    }

    /// No bearer header: the URL's signature authorizes it. The log names the playback's viewer.
    func license(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        try rawCKC(request, context: &context) { call, region throws(DeliveryFailure) in try service.license(call, region: region) }
    }

    /// The delivery API's `processSpcUrl`: as `license`, the URL's signature authorizes it; its
    /// first SPC starts the playback. The log names the viewer the URL was signed for.
    func processSPC(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        try rawCKC(request, context: &context) { call, region throws(DeliveryFailure) in try service.processSPC(call, region: region) }
    }

    /// Cloud Video Kit's licence request (docs/delivery.md "Cloud Video Kit"): the viewer's token
    /// comes in `x-drm-usertoken`, verified exactly as a bearer token (the same middleware, 401
    /// and log line; an `Authorization` header of the request is not read). The CKC is answered
    /// raw, or as `{"ckc": "<base64>"}` when the app accepts `application/json`.
    func cloudVideoKitLicense(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        // One token exactly: none, or two, leaves no Authorization and the middleware answers 401.
        let tokens = request.headers.values(for: "x-drm-usertoken")
        let token = tokens.count == 1 ? tokens.first : nil
        var bearer = request
        bearer.headers["Authorization"] = token.map { "Bearer " + $0 }
        do {
            return try authentication.handle(bearer, context: &context) { request, context in
                let viewer = try MediaRouteAdapter.viewer(&context)
                let call = CloudVideoKitLicenseRequest(
                    queryBrand: request.queryValue("brandGuid"), headerBrand: request.headers["x-drm-brandGuid"],
                    keyID: request.queryValue("kid"), iv: request.queryValue("iv"), userToken: token ?? "", spc: Data(request.body))
                let ckc: Data
                do throws(DeliveryFailure) {
                    ckc = try service.cloudVideoKitLicense(call, viewer: viewer, region: regions.region(for: request))
                } catch {
                    throw Self.answer(error)
                }
                guard request.headers.values(for: "Accept").contains(where: { $0.contains("application/json") }) else {
                    return .bytes(ckc, contentType: "application/octet-stream")
                }
                return .json(.object(JSONObject([("ckc", .string(ckc.base64EncodedString()))])))
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.internalError
        }
    }

    /// A signed raw-SPC licence URL's call: what the URL says and the SPC to `serve`, its CKC
    /// answered raw (`application/octet-stream`) and its viewer named in the log.
    private func rawCKC(_ request: ServerRequest, context: inout KASRequestContext,
                        _ serve: (LicenseURLRequest, String?) throws(DeliveryFailure) -> (ckc: Data, viewer: Identity))
        throws(HTTPError) -> ServerResponse
    {
        let call = LicenseURLRequest(playbackID: context.parameters["id"], component: context.parameters["component"],
                                     ticket: request.queryValue("viewer"), expires: request.queryValue("expires"),
                                     signature: request.queryValue("sig"), spc: Data(request.body))
        do {
            let answer = try serve(call, regions.region(for: request))
            context.identity = answer.viewer
            context.viewerHash = answer.viewer.viewerHash
            return .bytes(answer.ckc, contentType: "application/octet-stream")
        } catch {
            throw Self.answer(error)
        }
    }

    /// The W3C ClearKey licence: no bearer header needed (one sent is neither read nor needed),
    /// the URL's signature authorizes it. The log names the playback's viewer.
    func clearKeyLicense(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let call = ClearKeyLicenseRequest(playbackID: context.parameters["id"], expires: request.queryValue("expires"),
                                          signature: request.queryValue("sig"), body: Data(request.body))
        do {
            let answer = try service.clearKeyLicense(call, region: regions.region(for: request))
            context.identity = answer.viewer
            context.viewerHash = answer.viewer.viewerHash
            var response = ServerResponse.json(answer.answer)
            response.headers["Cache-Control"] = "no-store"
            return response
        } catch {
            throw Self.answer(error)
        }
    }

    /// A playback's manifest: the URL's signature authorizes it (players send no header).
    func playbackManifest(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let call = PlaybackManifestRequest(playbackID: context.parameters["id"], name: context.parameters["name"],
                                           expires: request.queryValue("expires"), signature: request.queryValue("sig"))
        do {
            let answer = try service.playbackManifest(call)
            context.identity = answer.viewer
            context.viewerHash = answer.viewer.viewerHash
            var response = ServerResponse.bytes(answer.body, contentType: answer.contentType)
            response.headers["Cache-Control"] = "private, no-store"
            return response
        } catch {
            throw Self.answer(error)
        }
    }

    /// `?token=` (a delivery token for this path) or, without one, the bearer token.
    func describe(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        if let token = request.queryValue("token") {
            do {
                context.identity = try service.viewer(deliveryToken: token, resource: request.path)
            } catch {
                throw Self.answer(error)
            }
            return try description(request, context: &context)
        }
        do {
            return try authentication.handle(request, context: &context) { request, context in
                try self.description(request, context: &context)
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.internalError
        }
    }

    private func description(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            return .json(try service.describe(assetID: context.parameters["assetId"], viewer: viewer,
                                              region: regions.region(for: request)))
        } catch {
            throw Self.answer(error)
        }
    }

    // MARK: The status table

    /// Every failure's answer: 400 malformed or a DRM system this service does not offer
    /// (`fairplay_not_offered`), 401 a refused delivery token or backend credential, 403 a refused viewer
    /// (`platform refused` with the `MediaDenial` code), licence or manifest URL (`licence URL
    /// refused` with its code) or key id (`licence refused`, `key_id_unknown`), 404 unknown
    /// asset, playback or manifest, 503 a dependency down; a media-service refusal is
    /// answered as the media routes answer it (`MediaRouteAdapter.answer`).
    static func answer(_ failure: DeliveryFailure) -> HTTPError {
        switch failure {
        case .malformed(let reason): HTTPError(.badRequest, reason: reason)
        case .noSuchAsset: HTTPError(.notFound, reason: "no such asset")
        case .noSuchPlayback: HTTPError(.notFound, reason: "no such playback")
        case .noSuchManifest: HTTPError(.notFound, reason: "no such manifest")
        case .keyIDUnknown: HTTPError(.forbidden, reason: "licence refused", code: "key_id_unknown")
        case .denied(let denial): HTTPError(.forbidden, reason: "platform refused", code: denial.rawValue)
        case .licenseURLRefused(let code): HTTPError(.forbidden, reason: "licence URL refused", code: code)
        case .deliveryTokensNotConfigured: HTTPError(.unauthorized, reason: "delivery tokens are not configured")
        case .deliveryTokenRefused(let reason): HTTPError(.unauthorized, reason: reason)
        case .backendCredentialRefused:
            HTTPError(.unauthorized, reason: "backend credential refused", headers: ["WWW-Authenticate": #"Basic realm="kas-backend""#])
        case .media(let failure): MediaRouteAdapter.answer(failure)
        case .storeUnavailable: HTTPError(.serviceUnavailable, reason: "state store unavailable")
        case .catalogEntryUnreadable: HTTPError(.serviceUnavailable, reason: "catalog entry unreadable")
        case .randomGeneratorUnavailable: HTTPError(.serviceUnavailable, reason: "random generator unavailable")
        case .fairPlayUnavailable: HTTPError(.serviceUnavailable, reason: "fairplay unavailable")
        case .fairPlayNotOffered:
            HTTPError(.badRequest, reason: "this key service does not offer FairPlay: ask for drmSystem clearkey or tdf",
                      code: "fairplay_not_offered")
        }
    }
}
