import Dispatch
import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJSON
import MediaDRMToolSupport

/// `kas serve`: loads the configuration and the key ring, starts the server, and runs until
/// SIGTERM or SIGINT (graceful shutdown) ; SIGHUP reloads the key ring after a rotation.
enum ServeCommand {
    static var verb: ToolVerb {
        ToolVerb("serve", summary: "Run the key access server.",
                 discussion: """
                 Settings come from the --config JSON file (or $KAS_CONFIG), KAS_* environment variables \
                 and these flags, in that order of increasing precedence. With no arguments it serves a \
                 working local instance: plain HTTP on 127.0.0.1:8443, data in ./kas-data, a key ring \
                 generated there if absent. It serves the media routes (/media/v1: sessions, key requests), \
                 the OpenTDF routes, /healthz and /metrics; the media store (media.sqlite) and the audit log \
                 (audit.log) live in the data directory. SIGTERM or SIGINT stops it gracefully (in-flight requests \
                 finish); SIGHUP reloads the key ring after 'kas keys rotate'.
                 """,
                 options: [
                    ToolOption.single("config", valueName: "file", help: "The JSON configuration file."),
                    ToolOption.single("listen", valueName: "host:port", help: "Address to listen on. Default: 127.0.0.1:8443."),
                    CommonOptions.dataDirectory,
                    ToolOption.single("key-ring-dir", valueName: "dir",
                                      help: "Read the key ring from <dir>/keys instead of the data directory (nodes sharing one ring)."),
                    ToolOption.single("public-url", valueName: "url",
                                      help: "The URL packagers write into key access objects, and the default accepted KAS URL."),
                    ToolOption.single("tls-cert", valueName: "pem", help: "Serve HTTPS with this PEM certificate chain (with --tls-key)."),
                    ToolOption.single("tls-key", valueName: "pem", help: "The PEM private key of --tls-cert."),
                    ToolOption.single("origin-url", valueName: "url",
                                      help: "The nginx origin serving the catalog (docs/delivery.md); media URLs point there."),
                    ToolOption.single("origin-secret-file", valueName: "file",
                                      help: "The origin secret file of 'kas origin-config': media URLs are signed with it."),
                    ToolOption.single("delivery-secret-file", valueName: "file",
                                      help: "The HS256 key of /v2/media delivery tokens (0600, 32+ bytes)."),
                    ToolOption.single("store", valueName: "redis-url",
                                      help: "Keep the state in Redis (redis://[user:password@]host:port/db; docs/kas.md) "
                                      + "instead of SQLite in the data directory. Prefer KAS_STORE_PASSWORD for the password."),
                    ToolOption.single("node", valueName: "name", help: "This node's name in the audit log. Default: the host name."),
                    ToolOption.flag("print-config", help: "Print the effective configuration as JSON and exit."),
                 ]) { parsed, console in
            let environment = ProcessInfo.processInfo.environment
            let flags: KASConfiguration.Overrides
            do throws(KASConfigurationError) {
                flags = try KASConfiguration.flagOverrides(
                    listen: parsed.value("listen"), dataDirectory: parsed.value("data-dir"),
                    publicURL: parsed.value("public-url"), tlsCertificateFile: parsed.value("tls-cert"),
                    tlsKeyFile: parsed.value("tls-key"), originURL: parsed.value("origin-url"),
                    originSecretFile: parsed.value("origin-secret-file"), deliverySecretFile: parsed.value("delivery-secret-file"),
                    store: parsed.value("store"), node: parsed.value("node"), keyRingDirectory: parsed.value("key-ring-dir"))
            } catch {
                throw UsageError(error.reason)
            }
            let configuration: KASConfiguration
            do throws(KASConfigurationError) {
                configuration = try KASConfiguration.load(configFile: parsed.value("config"), environment: environment, flags: flags)
            } catch {
                throw ToolFailure(error.reason)
            }
            for name in KASConfiguration.unusedEnvironmentVariables(environment, configuration: configuration) {
                console.warning("environment variable \(name) is not a KAS setting; ignored")
            }
            if parsed.flag("print-config") {
                console.write(JSONWriter.write(configuration.jsonValue, options: [.prettyPrinted]) + Data("\n".utf8))
                return
            }
            let sealKey = try KeyRingSealKey.resolve(file: configuration.keyRingSealKeyFile, environment: environment)
            let ring = try configuration.keyRingDirectory.map { directory in try KeyRing.load(dataDirectory: directory, sealKey: sealKey) }
                ?? loadOrGenerateRing(configuration.dataDirectory, sealKey: sealKey, console: console)
            let verifier: BearerTokenVerifier
            do throws(KASConfigurationError) {
                verifier = try BearerTokenVerifier(configuration: configuration, keyRing: ring, environment: environment)
            } catch {
                throw ToolFailure(error.reason)
            }
            try ServerLauncher.run(configuration: configuration, keyRing: KeyRingHolder(ring), verifier: verifier,
                                   console: console)
        }
    }

    /// The ring in the data directory; a missing one is generated so `kas serve` alone works.
    static func loadOrGenerateRing(_ dataDirectory: String, sealKey: KeyRingSealKey?, console: Console) throws -> KeyRing {
        if KeyRing.exists(dataDirectory: dataDirectory) {
            return try KeyRing.load(dataDirectory: dataDirectory, sealKey: sealKey)
        }
        // A new ring starts unsealed even with a key set: sealing is the operator's explicit step.
        let change = try KeyRing.generate(dataDirectory: dataDirectory)
        console.progress("generated a key ring in '\(dataDirectory)' (\(change.created.joined(separator: ", ")))")
        return change.ring
    }
}

/// Waits for SIGTERM/SIGINT (and handles SIGHUP) through Dispatch signal sources: the handlers
/// run on a queue, not in signal context, so they may lock, log and call into the server.
final class SignalWaiter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "kas.signals")
    private var sources: [DispatchSourceSignal] = []
    private let stopped = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopSignal: Int32?

    init(onReload: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [weak self] in self?.stop(signalNumber) }
            source.resume()
            sources.append(source)
        }
        signal(SIGHUP, SIG_IGN)
        let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        reload.setEventHandler(handler: onReload)
        reload.resume()
        sources.append(reload)
    }

    private func stop(_ signalNumber: Int32) {
        let first: Bool = lock.withLock {
            guard stopSignal == nil else { return false }
            stopSignal = signalNumber
            return true
        }
        if first { stopped.signal() }
    }

    /// Blocks until SIGTERM or SIGINT; returns the signal's name.
    func wait() -> String {
        stopped.wait()
        return lock.withLock { stopSignal == SIGINT ? "SIGINT" : "SIGTERM" }
    }
}
