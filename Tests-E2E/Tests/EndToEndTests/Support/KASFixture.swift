import Foundation
import KAS

/// The whole KAS in process (`KASTestHarness`: what `kas serve` assembles) on 127.0.0.1 and a
/// port the kernel picks, over TLS with a certificate made by the openssl CLI for 127.0.0.1 (its
/// own CA: the clients trust exactly that file), a fresh key ring and SQLite store in a temporary
/// data directory. Viewers' tokens come from its dev issuer.
final class KASFixture: @unchecked Sendable {
    let harness: KASTestHarness

    var baseURL: String { harness.baseURL }
    var publicURL: String { harness.publicURL }
    var caFile: String { harness.certificate?.certificatePath ?? "" }
    var publicKeyPEM: String { harness.rsaPublicKeyPEM }
    var dataDirectory: String { harness.dataDirectory }

    /// - Parameters:
    ///   - dataDirectory: serve an existing data directory (a restart); kept on stop.
    ///   - acceptedURLs: key service URLs accepted besides this instance's own (packages made
    ///     for an earlier instance on another port).
    ///   - clock: the KAS's notion of now (policy windows).
    init(dataDirectory: String? = nil, acceptedURLs: [String] = [],
         clock: @escaping @Sendable () -> Date = { Date() }) throws {
        harness = try KASTestHarness(tls: true, dataDirectory: dataDirectory, configure: { configuration in
            configuration.acceptedKASURLs = [configuration.publicURL] + acceptedURLs
        }, clock: clock)
    }

    func stop() { harness.stop() }

    /// A viewer's bearer token (ES256, the harness's dev issuer).
    func token(_ subject: String, entitlements: [String] = [Publisher.premium],
               rentals: [String: Int64] = [:], ttl: TimeInterval = 600) throws -> String {
        try harness.token(sub: subject, entitlements: entitlements, rentals: rentals, ttl: ttl)
    }

    /// The audit log's reasons, oldest first (`reason` of each JSON line).
    func auditReasons() -> [String] {
        let text = (try? String(contentsOfFile: dataDirectory + "/audit.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["reason"] as? String
        }
    }
}
