import Foundation
import KASDomain
import KASHTTP
import KASObservability
import Synchronization

/// A running KAS: the HTTP server bound to the configured address and the `KASApplication`
/// built for the address it got. The server binds first, so port 0 works: the public URL and
/// the accepted KAS URLs are derived from the real port before any route exists (requests in
/// that instant get 503). `kas serve` and `KASTestHarness` both run one.
public final class KASInstance: Sendable {
    public let application: KASApplication
    public let server: HTTPServer

    /// The configuration with the real port (see `KASConfiguration.bound(toPort:)`).
    public var configuration: KASConfiguration { application.configuration }
    public var port: Int { server.port }
    /// `http(s)://<listen host>:<port>`, where the server answers.
    public var address: String {
        KASConfiguration.derivedPublicURL(listen: configuration.listen, tls: server.configuration.tls != nil)
    }

    /// Binds and starts serving. `serverConfiguration` is the HTTP side (address, limits, TLS),
    /// usually `configuration.httpServerConfiguration()`.
    public init(configuration: KASConfiguration, serverConfiguration: HTTPServerConfiguration, keyRing: KeyRingHolder,
                verifier: BearerTokenVerifier, metrics: Metrics = Metrics(), sink: any LogSink,
                fairPlay: (any FairPlayKeyModule)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(KASApplicationError) {
        let slot = ResponderSlot()
        let server = HTTPServer(configuration: serverConfiguration, responder: slot.responder)
        do {
            try server.start()
        } catch {
            throw KASApplicationError("cannot start the server on \(configuration.listen): \(error.reason)")
        }
        let application: KASApplication
        do {
            application = try KASApplication(configuration: configuration.bound(toPort: server.port), keyRing: keyRing,
                                             verifier: verifier, metrics: metrics, sink: sink, fairPlay: fairPlay,
                                             storePoolSize: serverConfiguration.threadPoolSize, clock: clock)
        } catch {
            server.shutdown(gracePeriod: .zero)
            throw error
        }
        slot.install(application.responder)
        // The connection guard's refusals happen before any route runs (no request to count):
        // /metrics reads its own counters (docs/kas.md "Metrics", the alert rules in deploy/).
        metrics.observeCounter("http_connections_refused_total",
                               help: "Connections refused by the connection guard (a per-address or total limit).") { [server] in
            server.refusedConnections
        }
        metrics.observeCounter("http_requests_expired_total",
                               help: "Connections closed because their request did not arrive by the deadline.") { [server] in
            server.expiredRequests
        }
        self.application = application
        self.server = server
    }

    /// Graceful stop: no new connections, in-flight requests finish within the grace period
    /// (the server configuration's by default), then the store is closed.
    public func shutdown(gracePeriod: Duration? = nil) {
        server.shutdown(gracePeriod: gracePeriod)
        application.close()
    }
}

/// The responder a server gets before its routes exist: it answers 503 until the app's
/// responder is installed, then forwards every request to it.
final class ResponderSlot: Sendable {
    private let installed = Mutex<HTTPResponder<KASRequestContext>?>(nil)

    func install(_ responder: HTTPResponder<KASRequestContext>) {
        installed.withLock { $0 = responder }
    }

    var responder: HTTPResponder<KASRequestContext> {
        HTTPResponder<KASRequestContext> { [self] request, context in
            guard let responder = installed.withLock({ $0 }) else {
                throw HTTPError(.serviceUnavailable, reason: "starting")
            }
            return responder.respond(to: request, context: &context)
        }
    }
}
