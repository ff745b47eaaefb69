import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMJSON

/// The whole KAS for one (bound) configuration: the state stores (`KASStateStores`: SQLite in the
/// data directory, or a shared Redis), the audit log in the data directory, the media service,
/// and the router with every route. `KASInstance` binds
/// a server and runs one of these; `kas serve` and the in-process harness both go through it.
///
/// Public routes: /healthz, /metrics, the OpenTDF public-key and well-known routes and
/// `GET /media/v1/certificate`. The OpenTDF rewrap routes check the bearer token themselves (so
/// Connect clients get Connect errors); the other media routes sit behind
/// `AuthenticationMiddleware`.
public final class KASApplication: Sendable {
    /// The configuration the routes were built for (the real port when port 0 was asked for).
    public let configuration: KASConfiguration
    public let keyRing: KeyRingHolder
    public let metrics: Metrics
    /// Every state store (`KASStateStores`: SQLite in the data directory, or the shared Redis).
    public let stores: KASStateStores
    /// The media store (`stores.media`).
    public var store: any MediaStore { stores.media }
    public let auditLog: MediaAuditLog
    package let media: MediaService
    /// The catalog, playbacks and delivery routes (docs/delivery.md).
    package let delivery: DeliveryService
    /// The offline licences (docs/offline.md), in `stores.offline`.
    package let offline: OfflineLicenseService
    /// Fetches the discovered issuers' key sets (`BearerTokenVerifier.keySetRefresher`).
    let keySetRefresher: KeySetRefresher
    /// Every route, as the server runs them.
    public let responder: HTTPResponder<KASRequestContext>

    /// Opens the state stores (`KASStateStores`: the SQLite files in the data directory, created
    /// when absent, or the configured Redis) and `<dataDir>/audit.log`, and builds the routes.
    /// Nothing listens yet. `configuration.fairPlay` supplies the certificate and the SDK module
    /// (`fairPlay`, when given, replaces the configured module). `storePoolSize` is the HTTP
    /// worker threads, the Redis pool's default size.
    public init(configuration: KASConfiguration, keyRing: KeyRingHolder, verifier: BearerTokenVerifier,
                metrics: Metrics, sink: any LogSink, fairPlay: (any FairPlayKeyModule)? = nil,
                storePoolSize: Int? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(KASApplicationError) {
        guard Self.regions(configuration) != nil else {
            throw KASApplicationError("trustedProxies holds an entry that is neither an IP address nor a CIDR block")
        }
        var mediaConfiguration = MediaServiceConfiguration(kas: configuration)
        // The configured FairPlay deployment, checked before anything is created on disk. A
        // module passed in (tests) takes the place of the configured transport.
        var fairPlay = fairPlay
        if let settings = configuration.fairPlay {
            let deployment: FairPlayDeployment
            do throws(KASConfigurationError) {
                deployment = try settings.deployment()
            } catch {
                throw KASApplicationError(error.reason)
            }
            mediaConfiguration.certificate = deployment.certificate
            fairPlay = fairPlay ?? deployment.module
        }
        let webPlayer = try WebPlayerFiles.load(configuration.web)
        let layout = KASDataDirectory(configuration.dataDirectory)
        try layout.prepare()
        let stores = try KASStateStores.open(configuration, layout: layout,
                                             poolSize: storePoolSize ?? HTTPServerConfiguration().threadPoolSize)
        let auditLog: MediaAuditLog
        do {
            auditLog = try MediaAuditLog(path: layout.auditLog, maxBytes: configuration.media.auditMaxBytes,
                                         keepFiles: configuration.media.auditKeepFiles, node: configuration.node)
        } catch {
            stores.close()
            throw KASApplicationError("cannot open the audit log '\(layout.auditLog)': \(error.reason)")
        }
        let media: MediaService
        let delivery: DeliveryService
        do {
            media = try MediaService(configuration: mediaConfiguration, store: stores.media,
                                     unwrapper: KeyRingMediaUnwrapper(keyRing), fairPlay: fairPlay, audit: auditLog,
                                     metrics: metrics, clock: clock)
            delivery = try DeliveryService(configuration: configuration, catalog: stores.catalog, playbacks: stores.playbacks,
                                           media: media, clock: clock)
        } catch let error as KASApplicationError {
            stores.close()
            throw error
        } catch let error as MediaServiceError {
            stores.close()
            throw KASApplicationError(error.reason)
        } catch {
            stores.close()
            throw KASApplicationError("cannot start the media service")
        }
        self.delivery = delivery
        self.stores = stores
        self.configuration = configuration
        self.keyRing = keyRing
        self.metrics = metrics
        self.auditLog = auditLog
        self.media = media
        self.offline = OfflineLicenseService(media: media, keyRing: keyRing, store: stores.offline)
        self.responder = Self.makeRouter(configuration: configuration, keyRing: keyRing, verifier: verifier,
                                         metrics: metrics, sink: sink, media: media, delivery: delivery, offline: self.offline,
                                         webPlayer: webPlayer).responder()
        // The issuers configured by discovery: their key sets read once before the first request
        // (a provider that is down is logged and retried; its tokens are refused meanwhile), then
        // kept fresh in the background (docs/kas.md "Issuers by discovery").
        self.keySetRefresher = verifier.keySetRefresher
        keySetRefresher.start(sink: sink, metrics: metrics)
    }

    /// Where requests' regions come from (`regionHeader`, believed from `trustedProxies` only);
    /// nil when the proxy list does not parse.
    static func regions(_ configuration: KASConfiguration) -> TrustedRegionSource? {
        TrustedRegionSource(header: configuration.regionHeader, trustedProxies: configuration.trustedProxies)
    }

    /// Closes the stores (after the server stopped taking requests).
    public func close() {
        keySetRefresher.stop()
        stores.close()
    }

    /// The routes of a KAS; `media` nil leaves out the media routes (and their gauges).
    package static func makeRouter(configuration: KASConfiguration, keyRing: KeyRingHolder,
                                  verifier: BearerTokenVerifier, metrics: Metrics,
                                  sink: any LogSink, media: MediaService? = nil, delivery: DeliveryService? = nil,
                                  offline: OfflineLicenseService? = nil,
                                  webPlayer: WebPlayerFiles? = nil) -> Router<KASRequestContext> {
        let router = Router<KASRequestContext>()
        let regions = Self.regions(configuration) ?? .none
        var origins = Set(configuration.web.allowedOrigins)
        // The KAS's own pages (the player at /player/) are same-origin.
        if let own = WebOrigin(configuration.publicURL) { origins.insert(own.serialized) }
        router.add(middleware: RequestLogMiddleware(sink: sink))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(sink: sink))
        router.add(middleware: CORSMiddleware(allowedOrigins: origins))
        if let webPlayer { registerWebPlayerRoutes(on: router, files: webPlayer) }
        router.get("/healthz") { _, _ in .json(.object(JSONObject([("status", .string("ok"))]))) }
        router.get("/metrics") { _, _ in
            let text = metrics.render() + (media?.prometheusGauges(namespace: metrics.namespace) ?? "")
            return .bytes(Data(text.utf8), contentType: Metrics.contentType)
        }
        registerOpenTDFRoutes(on: router, keyRing: keyRing, verifier: verifier,
                              options: OpenTDFRouteOptions(publicURL: configuration.publicURL, rewrapLimit: media.map {
                                  RewrapRateLimit(perMinute: configuration.limits.rewrapRequestsPerMinute, store: $0.store,
                                                  clock: $0.clock)
                              }))
        if let media {
            let authentication = AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics)
            registerMediaRoutes(on: router, service: media, regions: regions, authentication: authentication,
                                openCertificate: delivery == nil || !configuration.delivery.signedCertificateURL)
            registerMediaRewrapRoute(on: router, service: MediaRewrapService(media: media, keys: keyRing, catalog: delivery?.catalog),
                                     regions: regions, authentication: authentication)
        }
        if let delivery {
            registerDeliveryRoutes(on: router, service: delivery, regions: regions,
                                   authentication: AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics))
        }
        if let offline {
            registerOfflineRoutes(on: router.group(), service: offline, regions: regions,
                                  authentication: AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics))
        }
        return router
    }
}
