/// Registers the delivery routes (docs/delivery.md):
///
/// | Route | Handler |
/// |---|---|
/// | `POST /media/v1/playback` | `DeliveryService.startPlayback` (bearer) |
/// | `DELETE /media/v1/playback/{id}` | `DeliveryService.releasePlayback` (bearer) |
/// | `POST /media/v1/playback/{id}/media-url` | `DeliveryService.renewMediaURL` (bearer) |
/// | `POST /media/v1/playback/{id}/license/{component}` | `DeliveryService.license` (the URL's own signature) |
/// | `GET /v2/media/{assetId}` | `DeliveryService.describe` (`?token=` delivery token, or bearer) |
public func registerDeliveryRoutes(on router: Router, service: DeliveryService, authentication: any HTTPMiddleware) {
    let media = router.group().group("media/v1")
    let authenticated = media.add(middleware: authentication)
    authenticated.post("playback") { request, context in try service.startPlayback(request, context: &context) }
    authenticated.delete("playback/{id}") { request, context in try service.releasePlayback(request, context: &context) }
    authenticated.post("playback/{id}/media-url") { request, context in try service.renewMediaURL(request, context: &context) }
    media.post("playback/{id}/license/{component}") { request, context in try service.license(request, context: &context) }
    router.get("/v2/media/{assetId}") { request, context in try service.describe(request, context: &context) }
}
