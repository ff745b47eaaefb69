import Foundation
import JSON

/// The whole KAS as one router: what `kas serve` runs, and what in-process tests (this
/// package's, the client's and the end-to-end suite) start on port 0 with `TestServer`.
public enum KASApplication {
    /// The routes `kas serve` answers. Public: /healthz, /metrics, the OpenTDF public-key and
    /// well-known routes. The OpenTDF rewrap routes check the bearer token themselves (so Connect
    /// clients get Connect errors); every other key route sits behind `AuthenticationMiddleware`.
    public static func makeRouter(configuration: KASConfiguration, keyRing: KeyRingHolder,
                                  verifier: BearerTokenVerifier, metrics: Metrics,
                                  sink: any LogSink) -> Router {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(sink: sink))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(sink: sink))
        router.get("/healthz") { _, _ in .json(.object(JSONObject([("status", .string("ok"))]))) }
        router.get("/metrics") { _, _ in metrics.response() }
        registerOpenTDFRoutes(on: router, keyRing: keyRing, verifier: verifier,
                              options: OpenTDFRouteOptions(publicURL: configuration.publicURL))
        return router
    }
}
