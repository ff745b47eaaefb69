import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON

/// The whole KAS in process, assembled as `kas serve` and `KASTestHarness` assemble it
/// (`KASInstance`): 127.0.0.1, a port the kernel picks, TLS with a server certificate issued by
/// the run's private CA (`TestCA`), a key ring (RSA-2048, P-256, dev token issuer) and the SQLite
/// store and audit log in its data directory. Viewers' tokens come from its dev issuer.
final class KASFixture: @unchecked Sendable {
    let instance: KASInstance
    let devIssuer: DevIssuer
    let caFile: String
    let dataDirectory: String
    private let keyRing: KeyRing

    /// `https://127.0.0.1:PORT`: where it answers, and the URL packages name.
    var baseURL: String { instance.address }
    var publicURL: String { instance.configuration.publicURL }
    var publicKeyPEM: String { keyRing.active(.rsa2048)?.publicKeyPEM ?? "" }

    /// - Parameters:
    ///   - dataDirectory: serve an existing data directory (a restart); default a fresh one.
    ///   - acceptedURLs: key service URLs accepted besides this instance's own (packages made
    ///     for an earlier instance on another port).
    ///   - clock: the KAS's notion of now (policy windows).
    ///   - port: a port of an earlier instance to serve on again (a restart whose packages name
    ///     its URL, which the Client requires of tdf-hls segments); default one the kernel picks.
    init(dataDirectory: String? = nil, acceptedURLs: [String] = [],
         clock: @escaping @Sendable () -> Date = { Date() }, port: Int = 0) throws {
        let tls = try TestCA.material.get()
        let directory = dataDirectory ?? Scratch.directory("kas-data")
        let ring = KeyRing.exists(dataDirectory: directory)
            ? try KeyRing.load(dataDirectory: directory)
            : try KeyRing.generate(dataDirectory: directory).ring
        guard let issuer = ring.devIssuer else { throw TestFailure("the key ring has no dev issuer") }

        var configuration = KASConfiguration()
        configuration.listen = ListenAddress(host: "127.0.0.1", port: port)
        configuration.dataDirectory = directory
        // The port-0 form, which `KASInstance` replaces by the bound address (in the accepted
        // URLs too) once the server listens.
        configuration.publicURL = "https://127.0.0.1:\(port)"
        configuration.acceptedKASURLs = [configuration.publicURL] + acceptedURLs
        configuration.tls = KASConfiguration.TLSFiles(certificateFile: tls.certificateFile, keyFile: tls.keyFile)
        var server = HTTPServerConfiguration(host: "127.0.0.1", port: port,
                                             tls: TLSConfiguration(certificatePEM: tls.certificatePEM, privateKeyPEM: tls.privateKeyPEM))
        server.threadPoolSize = 2
        server.shutdownGracePeriod = .seconds(2)
        server.maxBodyBytes = configuration.limits.maxBodyBytes
        instance = try KASInstance(configuration: configuration, serverConfiguration: server, keyRing: KeyRingHolder(ring),
                                   verifier: try BearerTokenVerifier(configuration: configuration, keyRing: ring),
                                   sink: MemoryLogSink(), clock: clock)
        devIssuer = issuer
        keyRing = ring
        caFile = tls.caFile
        self.dataDirectory = directory
    }

    /// Graceful stop; the store is closed. The data directory stays (a restart may reuse it;
    /// the run's scratch directory goes at exit).
    func stop() { instance.shutdown(gracePeriod: .seconds(1)) }

    /// A viewer's bearer token (ES256, the dev issuer), as `kas token` makes it.
    func token(_ subject: String, entitlements: [String] = [Publisher.premium],
               rentals: [String: Int64] = [:], ttl: TimeInterval = 600) throws -> String {
        var claims: [String: Any] = ["entitlements": entitlements]
        if !rentals.isEmpty { claims["rentals"] = rentals }
        return try devIssuer.token(subject: subject, lifetime: ttl, extraClaims: try Self.object(claims))
    }

    /// The audit log's reasons, oldest first (`reason` of each JSON line).
    func auditReasons() -> [String] {
        let text = (try? String(contentsOfFile: dataDirectory + "/audit.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["reason"] as? String
        }
    }

    private static func object(_ claims: [String: Any]) throws -> JSONObject {
        let data = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        guard case .object(let object) = try JSONParser.parse(data) else { throw TestFailure("claims are not an object") }
        return object
    }
}
