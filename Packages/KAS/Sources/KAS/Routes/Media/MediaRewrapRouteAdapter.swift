import KASDomain
import KASHTTP
import KASObservability
import MediaDRMJSON

/// The HTTP side of `POST /media/v1/rewrap`, as `MediaRouteAdapter` is of the other media routes:
/// the viewer from the request context, the body decoded into `MediaRewrapRequest`, the region
/// from the configured source, then the service's `RewrapResponse` encoded, or its `MediaFailure`
/// answered from the media status table (`MediaRouteAdapter.answer`).
struct MediaRewrapRouteAdapter: Sendable {
    let service: MediaRewrapService
    let regions: TrustedRegionSource

    func rewrap(_ request: ServerRequest, context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try MediaRouteAdapter.viewer(&context)
        let decoded = Result { () throws(MediaFailure) in
            guard let json = try? request.jsonBody() else { throw MediaRewrapRequest.malformed("malformed_body") }
            return try MediaRewrapRequest(json)
        }
        let region = regions.region(for: request)
        do {
            return .json(try service.rewrap(decoded, viewer: viewer, region: region).jsonValue)
        } catch {
            throw MediaRouteAdapter.answer(error)
        }
    }
}

/// Registers `POST <group prefix>/media/v1/rewrap` behind `authentication` (the bearer-token
/// middleware the other media routes use).
func registerMediaRewrapRoute(on router: Router<KASRequestContext>, service: MediaRewrapService, regions: TrustedRegionSource,
                              authentication: any HTTPMiddleware<KASRequestContext>) {
    let adapter = MediaRewrapRouteAdapter(service: service, regions: regions)
    router.group().group("media/v1").add(middleware: authentication)
        .post("rewrap") { request, context in try adapter.rewrap(request, context: &context) }
}
