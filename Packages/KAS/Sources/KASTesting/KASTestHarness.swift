import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJOSE
import MediaDRMJSON

/// The whole KAS in process, as `kas serve` assembles it, on 127.0.0.1 and a port the kernel
/// picks: a fresh data directory with a generated key ring (RSA-2048, P-256, the dev token
/// issuer), the media store and audit log there, plain HTTP or HTTPS with a fresh self-signed
/// certificate. For this package's tests and the Client and end-to-end tests. `stop()` (also run
/// on deinit) shuts it down and deletes the data directory and certificate.
public final class KASTestHarness: Sendable {
    public let instance: KASInstance
    /// The request log (one JSON line per request, auth refusals).
    public let log: MemoryLogSink
    /// Set for HTTPS: trust `certificate.certificatePath` (or its PEM) in the client.
    public let certificate: TestCertificate?
    public let devIssuer: DevIssuer
    private let removesDataDirectory: Bool

    /// `http(s)://127.0.0.1:PORT`: where the server answers, which is also the public URL
    /// packagers write into key access objects and the one accepted KAS URL (unless `configure`
    /// set others).
    public var baseURL: String { instance.address }
    public var publicURL: String { instance.configuration.publicURL }
    public var port: Int { instance.port }
    public var dataDirectory: String { instance.configuration.dataDirectory }
    public var application: KASApplication { instance.application }
    public var keyRing: KeyRing { instance.application.keyRing.current }
    /// The active RSA-2048 public key (SPKI PEM), what `packager --kas-public-key` takes.
    public var rsaPublicKeyPEM: String { keyRing.active(.rsa2048)?.publicKeyPEM ?? "" }

    /// - Parameters:
    ///   - tls: serve HTTPS with a fresh certificate for 127.0.0.1 and localhost.
    ///   - dataDirectory: an existing data directory to serve (kept on stop); nil makes a fresh
    ///     one (deleted on stop). Either way a missing key ring is generated.
    ///   - sealKey: the key-encryption key of a sealed ring in `dataDirectory`.
    ///   - configure: adjusts the configuration (limits, lease, rate limits, media settings,
    ///     accepted URLs) before start; the listen address, data directory and TLS files are the
    ///     harness's.
    public init(tls: Bool = false, dataDirectory: String? = nil, sealKey: KeyRingSealKey? = nil,
                configure: (inout KASConfiguration) -> Void = { _ in },
                fairPlay: (any FairPlayKeyModule)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(KASApplicationError) {
        let directory = dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("kas-harness-\(UUID().uuidString)").path
        removesDataDirectory = dataDirectory == nil
        var cleanup = { [removesDataDirectory] in
            if removesDataDirectory { try? FileManager.default.removeItem(atPath: directory) }
        }
        do throws(KASApplicationError) {
            let ring: KeyRing
            do throws(KeyRingError) {
                ring = KeyRing.exists(dataDirectory: directory)
                    ? try KeyRing.load(dataDirectory: directory, sealKey: sealKey)
                    : try KeyRing.generate(dataDirectory: directory).ring
            } catch {
                throw KASApplicationError("key ring: \(error.reason)")
            }
            guard let devIssuer = ring.devIssuer else { throw KASApplicationError("the key ring has no dev issuer") }

            var certificate: TestCertificate?
            if tls {
                do throws(HTTPServerError) {
                    certificate = try TestCertificate.generate()
                } catch {
                    throw KASApplicationError(error.reason)
                }
            }
            let made = certificate
            cleanup = { [removesDataDirectory] in
                made?.remove()
                if removesDataDirectory { try? FileManager.default.removeItem(atPath: directory) }
            }

            var configuration = KASConfiguration()
            configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
            configuration.publicURL = KASConfiguration.derivedPublicURL(listen: configuration.listen, tls: tls)
            configuration.acceptedKASURLs = [configuration.publicURL]
            configure(&configuration)
            configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
            configuration.dataDirectory = directory
            configuration.tls = certificate.map {
                KASConfiguration.TLSFiles(certificateFile: $0.certificatePath, keyFile: $0.directory + "/key.pem")
            }

            var server = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            server.threadPoolSize = 2
            server.shutdownGracePeriod = .seconds(2)
            server.maxBodyBytes = configuration.limits.maxBodyBytes
            server.maxConnections = configuration.limits.maxConnections
            server.maxConnectionsPerIP = configuration.limits.maxConnectionsPerIP
            server.requestTimeout = .seconds(configuration.limits.requestTimeoutSeconds)
            server.tls = certificate.map { TLSConfiguration(certificatePEM: $0.certificatePEM, privateKeyPEM: $0.privateKeyPEM) }

            let holder = KeyRingHolder(ring)
            let verifier: BearerTokenVerifier
            do throws(KASConfigurationError) {
                verifier = try BearerTokenVerifier(configuration: configuration, keyRing: ring)
            } catch {
                throw KASApplicationError(error.reason)
            }
            let log = MemoryLogSink()
            instance = try KASInstance(configuration: configuration, serverConfiguration: server, keyRing: holder,
                                       verifier: verifier, sink: log, fairPlay: fairPlay, clock: clock)
            self.log = log
            self.certificate = certificate
            self.devIssuer = devIssuer
        } catch {
            cleanup()
            throw error
        }
    }

    deinit { stop() }

    /// Stops the server, closes the store, and deletes what the harness made.
    public func stop() {
        instance.shutdown(gracePeriod: .seconds(1))
        certificate?.remove()
        if removesDataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }

    /// `baseURL` + path.
    public func url(_ path: String) -> String {
        baseURL + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// A bearer token from the harness's dev issuer, as `kas token` makes it: `sub`,
    /// `entitlements` (attribute value FQNs) and `rentals` (policy uuid -> purchase time, Unix
    /// seconds), valid for `ttl` seconds.
    public func token(sub: String, entitlements: [String] = [], rentals: [String: Int64] = [:],
                      ttl: TimeInterval = 600) throws(JOSEError) -> String {
        var claims: [(String, JSONValue)] = [("entitlements", .array(entitlements.map(JSONValue.string)))]
        if !rentals.isEmpty {
            claims.append(("rentals", .object(JSONObject(rentals.sorted { $0.key < $1.key }
                .map { ($0.key, .number(JSONNumber($0.value))) }))))
        }
        return try devIssuer.token(subject: sub, lifetime: ttl, extraClaims: JSONObject(claims))
    }
}
