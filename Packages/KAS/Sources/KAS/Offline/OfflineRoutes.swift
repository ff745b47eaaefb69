/// Registers the offline licence routes under `<group prefix>/media/v1` (docs/offline.md):
///
/// | Route | Handler |
/// |---|---|
/// | `GET offline-signing-keys` | no credential; the licence-signing JWKS |
/// | `POST offline-license` | `OfflineLicenseService.issue` |
/// | `POST offline-license/{licenseId}/renew` | `OfflineLicenseService.renew` |
/// | `DELETE offline-license/{licenseId}` | `OfflineLicenseService.release` |
///
/// `authentication` (the bearer-token middleware) wraps every route but the key set, which a
/// player fetches to verify licences it already holds.
public func registerOfflineRoutes(on group: RouteGroup, service: OfflineLicenseService,
                                  authentication: (any HTTPMiddleware)? = nil) {
    let media = group.group("media/v1")
    media.get("offline-signing-keys") { request, context in try service.signingKeys(request, context: &context) }
    let authenticated = authentication.map { media.add(middleware: $0) } ?? media
    authenticated.post("offline-license") { request, context in try service.issue(request, context: &context) }
    authenticated.post("offline-license/{licenseId}/renew") { request, context in try service.renew(request, context: &context) }
    authenticated.delete("offline-license/{licenseId}") { request, context in try service.release(request, context: &context) }
}
