import KASDomain
import KASHTTP
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline

/// The HTTP side of the offline licence routes (docs/offline.md): each handler takes the viewer
/// from the request context, reads the body into its message (a body that is not the message is
/// handed on as the failure, so the service audits it), calls `OfflineLicenseService`, and
/// encodes its answer; every `OfflineFailure` gets its status in one table (`answer`).
struct OfflineRouteAdapter: Sendable {
    let service: OfflineLicenseService
    let regions: TrustedRegionSource

    // MARK: Handlers

    func signingKeys(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        do {
            return .json(.object(try service.signingKeys().jsonObject))
        } catch {
            throw Self.answer(error)
        }
    }

    func issue(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        let body = Result { () throws(OfflineFailure) in
            try Self.message(request) { json throws(OfflineLicenseError) in
                try OfflineLicenseRequest(json: json, maxManifestBytes: ManifestAdmission.maxManifestBytes)
            }
        }
        do throws(OfflineFailure) {
            return .json(try service.issue(body, viewer: viewer, region: regions.region(for: request)).jsonValue)
        } catch {
            throw Self.answer(error)
        }
    }

    func renew(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            return .json(try service.renew(id: context.parameters["licenseId"], report: Self.playReport(request), viewer: viewer,
                                           region: regions.region(for: request)).jsonValue)
        } catch {
            throw Self.answer(error)
        }
    }

    func release(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        do {
            try service.release(id: context.parameters["licenseId"], report: Self.playReport(request), viewer: viewer)
            return ServerResponse(status: .noContent)
        } catch {
            throw Self.answer(error)
        }
    }

    // MARK: Decoding

    /// The optional play report of a renewal or release; an empty body is an empty report.
    static func playReport(_ request: ServerRequest) -> Result<OfflinePlayReport, OfflineFailure> {
        guard !request.body.isEmpty else { return .success(OfflinePlayReport()) }
        return Result { () throws(OfflineFailure) in
            try message(request) { json throws(OfflineLicenseError) in try OfflinePlayReport(json: json) }
        }
    }

    /// The body as strict JSON, read into its message by `read`; either failure is `malformed`
    /// with its reason (the message's rule, never the bytes).
    private static func message<Message>(_ request: ServerRequest,
                                         _ read: (JSONValue) throws(OfflineLicenseError) -> Message) throws(OfflineFailure) -> Message {
        guard let json = try? request.jsonBody() else { throw .malformed("the body is not strict JSON") }
        do {
            return try read(json)
        } catch {
            throw .malformed(error.reason)
        }
    }

    // MARK: The status table

    /// Every failure's answer (docs/protocol.md, docs/offline.md).
    static func answer(_ failure: OfflineFailure) -> HTTPError {
        switch failure {
        case .malformed(let reason): HTTPError(.badRequest, reason: "malformed offline licence request: \(reason)")
        case .manifestRefused: HTTPError(.forbidden, reason: "manifest refused")
        case .denied(let denial): HTTPError(.forbidden, reason: sentence(denial), code: denial.rawValue)
        case .deviceLimit:
            HTTPError(.tooManyRequests, reason: "offline device limit: release the licence on another device first",
                      code: MediaDenial.offlineDeviceLimit.rawValue)
        case .rateLimited(let retryAfter): HTTPError(.tooManyRequests, reason: "rate limit", headers: ["Retry-After": String(retryAfter)])
        case .noSuchLicense: HTTPError(.notFound, reason: "no such licence")
        case .storeUnavailable: HTTPError(.serviceUnavailable, reason: "state store unavailable")
        case .signingUnavailable:
            HTTPError(.serviceUnavailable, reason: "no offline-license signing key (run 'kas keys generate')")
        case .unavailable(let reason, _): HTTPError(.serviceUnavailable, reason: reason)
        }
    }

    /// The `error` sentence of a policy refusal: the key request's `platform refused`, or what to
    /// do for the offline-only codes.
    private static func sentence(_ denial: MediaDenial) -> String {
        switch denial {
        case .offlineNotAllowed: "offline viewing is not allowed for this asset (its policy has no offline: true)"
        case .offlineProfileUnsupported:
            "offline licences cover fps-v2 packages only: a tdf-hls package has a key per segment"
        default: "platform refused"
        }
    }
}
