/// Registers the media routes under `<group prefix>/media/v1`:
///
/// | Route | Handler |
/// |---|---|
/// | `GET certificate` | no credential; 404 unless a certificate is configured |
/// | `POST session/start` | `MediaService.startSession` |
/// | `POST session/{id}/heartbeat` | `MediaService.heartbeat` |
/// | `DELETE session/{id}` | `MediaService.endSession` |
/// | `POST key-request` | `MediaService.keyRequest` |
///
/// `authentication` (the bearer-token middleware) wraps every route but the certificate, which
/// fps-v2 §10.1 fetches without a credential.
public func registerMediaRoutes(on group: RouteGroup, service: MediaService, authentication: (any HTTPMiddleware)? = nil) {
    let media = group.group("media/v1")
    media.get("certificate") { request, context in try service.certificate(request, context: &context) }
    let authenticated = authentication.map { media.add(middleware: $0) } ?? media
    authenticated.post("session/start") { request, context in try service.startSession(request, context: &context) }
    authenticated.post("session/{id}/heartbeat") { request, context in try service.heartbeat(request, context: &context) }
    authenticated.delete("session/{id}") { request, context in try service.endSession(request, context: &context) }
    authenticated.post("key-request") { request, context in try service.keyRequest(request, context: &context) }
}

public func registerMediaRoutes(on router: Router, service: MediaService, authentication: (any HTTPMiddleware)? = nil) {
    registerMediaRoutes(on: router.group(), service: service, authentication: authentication)
}
