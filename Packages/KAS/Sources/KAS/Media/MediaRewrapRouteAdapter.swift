import MediaDRMJSON

/// The HTTP side of `POST /media/v1/rewrap`, as `MediaRouteAdapter` is of the other media routes:
/// the viewer from the request context, the body decoded into `MediaRewrapRequest`, the region
/// from the configured source, then the service's `RewrapResponse` encoded, or its `MediaFailure`
/// answered from the media status table (`MediaRouteAdapter.answer`).
struct MediaRewrapRouteAdapter: Sendable {
    let service: MediaRewrapService

    func rewrap(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        let decoded = Result { () throws(MediaFailure) in
            guard let json = try? request.jsonBody() else { throw MediaRewrapRequest.malformed("malformed_body") }
            return try MediaRewrapRequest(json)
        }
        let region = service.media.configuration.regionSource.region(for: request)
        do {
            return .json(try service.rewrap(decoded, viewer: viewer, region: region).jsonValue)
        } catch {
            throw MediaRouteAdapter.answer(error)
        }
    }
}

/// Registers `POST <group prefix>/media/v1/rewrap` behind `authentication` (the bearer-token
/// middleware the other media routes use).
public func registerMediaRewrapRoute(on router: Router, service: MediaRewrapService, authentication: any HTTPMiddleware) {
    let adapter = MediaRewrapRouteAdapter(service: service)
    router.group().group("media/v1").add(middleware: authentication)
        .post("rewrap") { request, context in try adapter.rewrap(request, context: &context) }
}
