import Foundation
import JSON
import KAS
import ToolSupport

/// Builds the router, starts the HTTP server, and blocks until SIGTERM or SIGINT; then shuts
/// down gracefully (no new connections, in-flight requests finish within the grace period).
enum ServerLauncher {
    static func run(configuration: KASConfiguration, keyRing: KeyRingHolder, verifier: BearerTokenVerifier,
                    console: Console) throws {
        let serverConfiguration: HTTPServerConfiguration
        do throws(KASConfigurationError) {
            serverConfiguration = try configuration.httpServerConfiguration()
        } catch {
            throw ToolFailure(error.reason)
        }
        let sink = StandardErrorLogSink()
        let metrics = Metrics()
        let router = KASApplication.makeRouter(configuration: configuration, keyRing: keyRing, verifier: verifier,
                                                metrics: metrics, sink: sink)

        // Signal sources first, so a SIGTERM that arrives during start-up is not lost.
        let signals = SignalWaiter {
            do throws(KeyRingError) {
                let ring = try keyRing.reload()
                log(sink, "keys_reloaded", [("kids", .array(ring.entries.map { .string($0.kid) }))])
            } catch {
                log(sink, "keys_reload_failed", [("reason", .string(error.reason))])
            }
        }
        let server = HTTPServer(configuration: serverConfiguration, router: router)
        do throws(HTTPServerError) {
            try server.start()
        } catch {
            throw ToolFailure("cannot start the server on \(configuration.listen): \(error.reason)")
        }
        let scheme = serverConfiguration.tls == nil ? "http" : "https"
        let bound = configuration.bound(toPort: server.port)
        log(sink, "listening", [
            ("address", .string("\(scheme)://\(bound.listen)")), ("publicURL", .string(bound.publicURL)),
            ("kids", .array(keyRing.current.entries.filter(\.isActive).map { .string($0.kid) })),
        ])
        let signalName = signals.wait()
        log(sink, "shutting_down", [("signal", .string(signalName)), ("inFlight", .number(JSONNumber(server.inFlightRequests)))])
        server.shutdown()
        log(sink, "stopped", [])
    }

    static func log(_ sink: any LogSink, _ event: String, _ fields: [(String, JSONValue)]) {
        let members: [(String, JSONValue)] = [("ts", .string(ISO8601DateFormatter().string(from: Date()))), ("event", .string(event))]
        sink.write(JSONWriter.string(.object(JSONObject(members + fields)), options: []))
    }
}
