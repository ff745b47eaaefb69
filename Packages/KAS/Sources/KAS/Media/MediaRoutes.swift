/// Registers the media routes under `<group prefix>/media/v1`, each handled by the route adapter
/// (`MediaRouteAdapter`: decode, call the `MediaService` step, encode):
///
/// | Route | Adapter → service |
/// |---|---|
/// | `GET certificate` | no credential; 404 unless a certificate is configured |
/// | `POST session/start` | `startSession` |
/// | `POST session/{id}/heartbeat` | `heartbeat` |
/// | `DELETE session/{id}` | `endSession` |
/// | `POST key-request` | `keyRequest` |
///
/// `authentication` (the bearer-token middleware) wraps every route but the certificate, which
/// fps-v2 §10.1 fetches without a credential.
public func registerMediaRoutes(on group: RouteGroup, service: MediaService, authentication: (any HTTPMiddleware)? = nil) {
    let media = group.group("media/v1")
    let adapter = MediaRouteAdapter(service: service)
    media.get("certificate") { request, context in try adapter.certificate(request, context: &context) }
    let authenticated = authentication.map { media.add(middleware: $0) } ?? media
    authenticated.post("session/start") { request, context in try adapter.startSession(request, context: &context) }
    authenticated.post("session/{id}/heartbeat") { request, context in try adapter.heartbeat(request, context: &context) }
    authenticated.delete("session/{id}") { request, context in try adapter.endSession(request, context: &context) }
    authenticated.post("key-request") { request, context in try adapter.keyRequest(request, context: &context) }
}

/// `registerMediaRoutes(on:service:authentication:)` on the router's root group.
public func registerMediaRoutes(on router: Router, service: MediaService, authentication: (any HTTPMiddleware)? = nil) {
    registerMediaRoutes(on: router.group(), service: service, authentication: authentication)
}
