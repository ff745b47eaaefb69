// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import KASDomain
import KASHTTP
import KASObservability

/// Registers the media routes under `<group prefix>/media/v1`, each handled by the route adapter
/// (`MediaRouteAdapter`: decode, call the `MediaService` step, encode):
///
/// | Route | Adapter → service |
/// |---|---|
/// | `GET certificate` | no credential; 404 unless a certificate is configured; 403 with `openCertificate` false |
/// | `POST session/start` | `startSession` |
/// | `POST session/{id}/heartbeat` | `heartbeat` |
/// | `DELETE session/{id}` | `endSession` |
/// | `POST key-request` | `keyRequest` |
///
/// `authentication` (the bearer-token middleware) wraps every route but the certificate, which
/// fps-v2 §10.1 fetches without a credential.
func registerMediaRoutes(on group: RouteGroup<KASRequestContext>, service: MediaService, regions: TrustedRegionSource = .none,
                         authentication: (any HTTPMiddleware<KASRequestContext>)? = nil, openCertificate: Bool = true) {
    let media = group.group("media/v1")
    let adapter = MediaRouteAdapter(service: service, regions: regions, openCertificate: openCertificate)
    media.get("certificate") { request, context in try adapter.certificate(request, context: &context) }
    let authenticated = authentication.map { media.add(middleware: $0) } ?? media
    authenticated.post("session/start") { request, context in try adapter.startSession(request, context: &context) }
    authenticated.post("session/{id}/heartbeat") { request, context in try adapter.heartbeat(request, context: &context) }
    authenticated.delete("session/{id}") { request, context in try adapter.endSession(request, context: &context) }
    authenticated.post("key-request") { request, context in try adapter.keyRequest(request, context: &context) }
}

/// `registerMediaRoutes(on:service:regions:authentication:openCertificate:)` on the router's root group.
func registerMediaRoutes(on router: Router<KASRequestContext>, service: MediaService, regions: TrustedRegionSource = .none,
                         authentication: (any HTTPMiddleware<KASRequestContext>)? = nil, openCertificate: Bool = true) {
    registerMediaRoutes(on: router.group(), service: service, regions: regions, authentication: authentication,
                        openCertificate: openCertificate)
}
