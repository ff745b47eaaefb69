import Foundation
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
    public let media: MediaService
    /// The catalog, playbacks and delivery routes (docs/delivery.md).
    public let delivery: DeliveryService
    /// The offline licences (docs/offline.md), in `stores.offline`.
    public let offline: OfflineLicenseService
    /// Every route, as the server runs them.
    public let responder: HTTPResponder

    /// Opens the state stores (`KASStateStores`: the SQLite files in the data directory, created
    /// when absent, or the configured Redis) and `<dataDir>/audit.log`, and builds the routes.
    /// Nothing listens yet. `configuration.fairPlay` supplies the certificate and the SDK module
    /// (`fairPlay`, when given, replaces the configured module). `storePoolSize` is the HTTP
    /// worker threads, the Redis pool's default size.
    public init(configuration: KASConfiguration, keyRing: KeyRingHolder, verifier: BearerTokenVerifier,
                metrics: Metrics, sink: any LogSink, fairPlay: (any FairPlayKeyModule)? = nil,
                storePoolSize: Int? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(KASApplicationError) {
        guard var mediaConfiguration = MediaServiceConfiguration(kas: configuration) else {
            throw KASApplicationError("trustedProxies holds an entry that is neither an IP address nor a CIDR block")
        }
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
                                           media: media,
                                           authentication: AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics),
                                           clock: clock)
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
    }

    /// Closes the stores (after the server stopped taking requests).
    public func close() {
        stores.close()
    }

    /// The routes of a KAS; `media` nil leaves out the media routes (and their gauges).
    public static func makeRouter(configuration: KASConfiguration, keyRing: KeyRingHolder,
                                  verifier: BearerTokenVerifier, metrics: Metrics,
                                  sink: any LogSink, media: MediaService? = nil, delivery: DeliveryService? = nil,
                                  offline: OfflineLicenseService? = nil,
                                  webPlayer: WebPlayerFiles? = nil) -> Router {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(sink: sink))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(sink: sink))
        router.add(middleware: CORSMiddleware(allowedOrigins: configuration.web.allowedOrigins, publicURL: configuration.publicURL))
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
            registerMediaRoutes(on: router, service: media, authentication: authentication)
            registerMediaRewrapRoute(on: router, service: MediaRewrapService(media: media, keys: keyRing), authentication: authentication)
        }
        if let delivery {
            registerDeliveryRoutes(on: router, service: delivery,
                                   authentication: AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics))
        }
        if let offline {
            registerOfflineRoutes(on: router.group(), service: offline,
                                  authentication: AuthenticationMiddleware(verifier: verifier, sink: sink, metrics: metrics))
        }
        return router
    }
}

/// The app could not be assembled (a store that does not open, a setting the media service
/// refuses). The reason names the file or setting, never key material.
public struct KASApplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "KAS start-up error: \(reason)" }
}

/// What the KAS keeps in its data directory besides the key ring (`keys/`, see `KeyRing`).
public struct KASDataDirectory: Sendable, Equatable {
    public let path: String

    public init(_ path: String) { self.path = path }

    /// The media store: sessions, first plays, stream limits, rate buckets (SQLite, WAL: the
    /// `-wal` and `-shm` files beside it belong to it).
    public var mediaStore: String { (path as NSString).appendingPathComponent("media.sqlite") }
    /// The offline licences (SQLite, WAL), apart from the media store (docs/offline.md).
    public var offlineStore: String { (path as NSString).appendingPathComponent("offline.sqlite") }
    /// The audit log; rotated copies are `audit.log.1` (newest) to `audit.log.N`.
    public var auditLog: String { (path as NSString).appendingPathComponent("audit.log") }

    /// Creates the directory (0700) when absent, and the store file 0600 before SQLite creates
    /// it (its WAL and shared-memory files take the database file's mode).
    func prepare() throws(KASApplicationError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if !manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
            } catch {
                throw KASApplicationError("cannot create the data directory '\(path)'")
            }
        } else if !isDirectory.boolValue {
            throw KASApplicationError("the data directory '\(path)' is not a directory")
        }
        for store in [mediaStore, offlineStore] where !manager.fileExists(atPath: store) {
            let fd = open(store, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { Foundation.close(fd) }
        }
    }
}
