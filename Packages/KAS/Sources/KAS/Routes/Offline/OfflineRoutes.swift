import KASDomain
import KASHTTP

/// Registers the offline licence routes under `<group prefix>/media/v1` (docs/offline.md), each
/// handled by `OfflineRouteAdapter`:
///
/// | Route | Adapter → service |
/// |---|---|
/// | `GET offline-signing-keys` | no credential; the licence-signing JWKS |
/// | `POST offline-license` | `issue` |
/// | `POST offline-license/{licenseId}/renew` | `renew` |
/// | `DELETE offline-license/{licenseId}` | `release` |
///
/// `authentication` (the bearer-token middleware) wraps every route but the key set, which a
/// player fetches to verify licences it already holds.
func registerOfflineRoutes(on group: RouteGroup<KASRequestContext>, service: OfflineLicenseService,
                           regions: TrustedRegionSource = .none, authentication: (any HTTPMiddleware<KASRequestContext>)? = nil) {
    let adapter = OfflineRouteAdapter(service: service, regions: regions)
    let media = group.group("media/v1")
    media.get("offline-signing-keys") { request, context in try adapter.signingKeys(request, context: &context) }
    let authenticated = authentication.map { media.add(middleware: $0) } ?? media
    authenticated.post("offline-license") { request, context in try adapter.issue(request, context: &context) }
    authenticated.post("offline-license/{licenseId}/renew") { request, context in try adapter.renew(request, context: &context) }
    authenticated.delete("offline-license/{licenseId}") { request, context in try adapter.release(request, context: &context) }
}
