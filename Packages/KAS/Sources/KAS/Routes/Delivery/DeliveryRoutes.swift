import KASDomain
import KASHTTP

/// Registers the delivery routes (docs/delivery.md), each handled by `DeliveryRouteAdapter`:
///
/// | Route | Adapter → service |
/// |---|---|
/// | `GET /media/v1/catalog` | `listCatalog` (bearer) |
/// | `POST /media/v1/playback` | `startPlayback` (bearer) |
/// | `DELETE /media/v1/playback/{id}` | `releasePlayback` (bearer) |
/// | `POST /media/v1/playback/{id}/media-url` | `renewMediaURL` (bearer) |
/// | `POST /media/v1/playback/{id}/license/{component}` | `license` (the URL's own signature) |
/// | `POST /media/v1/playback/{id}/spc` | `processSPC` (the URL's own signature; the delivery API's `processSpcUrl`) |
/// | `POST /media/v1/playback/{id}/clearkey` | `clearKeyLicense` (the URL's own signature) |
/// | `GET /media/v1/playback/{id}/{name}` | `playbackManifest` (the URL's own signature) |
/// | `GET /v2/media/{assetId}` | `describe` (`?token=` delivery token, or bearer) |
/// | `POST /media/v1/backend/playback` | `startBackendPlayback` (a backend client's Basic credential) |
/// | `POST /media/v1/playback/{id}/release` | `releaseSignedPlayback` (the URL's own signature) |
/// | `GET /media/v1/certificate/{id}` | `playbackCertificate` (the URL's own signature) |
/// | `POST /media/v1/cloud-video-kit/license` | `cloudVideoKitLicense` (`x-drm-usertoken` as a bearer; `delivery.tenantID`) |
func registerDeliveryRoutes(on router: Router<KASRequestContext>, service: DeliveryService, regions: TrustedRegionSource = .none,
                            authentication: any HTTPMiddleware<KASRequestContext>) {
    let adapter = DeliveryRouteAdapter(service: service, regions: regions, authentication: authentication)
    let media = router.group().group("media/v1")
    let authenticated = media.add(middleware: authentication)
    authenticated.get("catalog") { request, context in try adapter.listCatalog(request, context: &context) }
    authenticated.post("playback") { request, context in try adapter.startPlayback(request, context: &context) }
    authenticated.delete("playback/{id}") { request, context in try adapter.releasePlayback(request, context: &context) }
    authenticated.post("playback/{id}/media-url") { request, context in try adapter.renewMediaURL(request, context: &context) }
    media.post("playback/{id}/license/{component}") { request, context in try adapter.license(request, context: &context) }
    media.post("playback/{id}/spc") { request, context in try adapter.processSPC(request, context: &context) }
    media.post("playback/{id}/clearkey") { request, context in try adapter.clearKeyLicense(request, context: &context) }
    media.get("playback/{id}/{name}") { request, context in try adapter.playbackManifest(request, context: &context) }
    media.post("backend/playback") { request, context in try adapter.startBackendPlayback(request, context: &context) }
    media.post("playback/{id}/release") { request, context in try adapter.releaseSignedPlayback(request, context: &context) }
    media.get("certificate/{id}") { request, context in try adapter.playbackCertificate(request, context: &context) }
    media.post("cloud-video-kit/license") { request, context in try adapter.cloudVideoKitLicense(request, context: &context) }
    router.get("/v2/media/{assetId}") { request, context in try adapter.describe(request, context: &context) }
}
