import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJSON
import MediaDRMToolSupport

/// Starts the whole KAS (`KASInstance`: server, media store, audit log, every route) and blocks
/// until SIGTERM or SIGINT; then shuts down gracefully (no new connections, in-flight requests
/// finish within the grace period) and closes the store.
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

        // Signal sources first, so a SIGTERM that arrives during start-up is not lost.
        let signals = SignalWaiter {
            do throws(KeyRingError) {
                let ring = try keyRing.reload()
                log(sink, "keys_reloaded", [("kids", .array(ring.entries.map { .string($0.kid) }))])
            } catch {
                log(sink, "keys_reload_failed", [("reason", .string(error.reason))])
            }
        }
        let instance: KASInstance
        do throws(KASApplicationError) {
            instance = try KASInstance(configuration: configuration, serverConfiguration: serverConfiguration,
                                       keyRing: keyRing, verifier: verifier, sink: sink)
        } catch {
            throw ToolFailure(error.reason)
        }
        let layout = KASDataDirectory(instance.configuration.dataDirectory)
        log(sink, "listening", [
            ("address", .string(instance.address)), ("publicURL", .string(instance.configuration.publicURL)),
            ("kids", .array(keyRing.current.entries.filter(\.isActive).map { .string($0.kid) })),
            // The state: the SQLite file, or the shared Redis by its redacted URL; and which node
            // this is and whose key ring it reads, for an operator running several.
            ("mediaStore", .string(instance.configuration.store.url == nil ? layout.mediaStore : instance.application.stores.location)),
            ("node", .string(instance.configuration.node)), ("keyRing", .string(instance.configuration.keyRingHome)),
            ("auditLog", .string(layout.auditLog)),
            ("fairPlay", .string(fairPlayMode(instance.configuration.fairPlay))),
        ])
        let signalName = signals.wait()
        log(sink, "shutting_down", [("signal", .string(signalName)),
                                    ("inFlight", .number(JSONNumber(instance.server.inFlightRequests)))])
        instance.shutdown()
        log(sink, "stopped", [])
    }

    /// How FairPlay is served, for the `listening` line (paths and URLs are the operator's own).
    static func fairPlayMode(_ settings: KASConfiguration.FairPlaySettings?) -> String {
        switch settings?.transport {
        case nil: "off"
        case .command(let executable, _)?: "command \(executable)"
        case .url(let url)?: "url \(url)"
        }
    }

    static func log(_ sink: any LogSink, _ event: String, _ fields: [(String, JSONValue)]) {
        let members: [(String, JSONValue)] = [("ts", .string(ISO8601DateFormatter().string(from: Date()))), ("event", .string(event))]
        sink.write(JSONWriter.string(.object(JSONObject(members + fields)), options: []))
    }
}
