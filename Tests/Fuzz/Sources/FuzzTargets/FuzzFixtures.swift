import Foundation
import MediaDRMCrypto
import MediaDRMTDF

/// The fixed material the targets need to reach past the cryptographic checks: a KAS key ring
/// made once by `kas keys generate` and checked in under `Tests/Fuzz/fixtures/kas/` (a fuzzing
/// fixture, protecting nothing), whose RSA and P-256 keys the seed packages and TDFs are wrapped
/// to, and the key service URL written into them. `Tests/Fuzz/make-seeds.sh` uses the same files.
enum FuzzFixtures {
    /// `Tests/Fuzz/fixtures`, found from this source file so that the harness and the replay
    /// tests read the same files wherever the repository is checked out.
    static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures").path

    /// The KAS URL the seeds name; plain http to loopback is an accepted key service URL.
    static let keyServiceURL = "http://127.0.0.1:8443"

    /// The attribute the seed policies carry and the fixture viewer is entitled to.
    static let attribute = "https://example.com/attr/tier/value/premium"

    /// The fixture key ring's data directory (read only: copy it before serving from it).
    static var keyRingDirectory: String { directory + "/kas" }

    /// The key ring's private keys (RSA-2048 and P-256), the unwrap keys of the TDF and
    /// package seeds.
    static let kasPrivateKeys: [KASPrivateKey] = {
        let keys = keyRingDirectory + "/keys/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: keys)) ?? []
        return names.sorted().filter { $0.hasSuffix(".pem") }.compactMap { name in
            guard let pem = try? String(contentsOfFile: keys + name, encoding: .utf8) else { return nil }
            return try? KASPrivateKey(pemRepresentation: pem)
        }
    }()

    /// A fixed content key for the decryption targets: cbcs has no authentication, so any key
    /// decrypts and the sample path is exercised in full.
    static let contentKey = SecretKey(data: [UInt8](repeating: 0x5A, count: 16))
}
