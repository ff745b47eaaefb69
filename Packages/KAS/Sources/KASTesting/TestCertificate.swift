import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis

/// A self-signed P-256 certificate for `localhost` and `127.0.0.1`, made by the openssl CLI in a
/// fresh temporary directory. For tests and local demos only.
public struct TestCertificate: Sendable, CustomStringConvertible {
    public let certificatePEM: String
    public let privateKeyPEM: String
    /// The certificate file, for `curl --cacert` or a client's CA file option.
    public let certificatePath: String
    /// The directory holding the files; `remove()` deletes it.
    public let directory: String

    public var description: String { "TestCertificate(\(certificatePath), key: redacted)" }

    public static func generate(commonName: String = "localhost") throws(HTTPServerError) -> TestCertificate {
        let fileManager = FileManager.default
        let directory = fileManager.temporaryDirectory.appendingPathComponent("kas-tls-\(UUID().uuidString)").path
        do {
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
        } catch {
            throw HTTPServerError(.invalidConfiguration, "cannot create a temporary directory for the test certificate")
        }
        let certificatePath = directory + "/cert.pem"
        let keyPath = directory + "/key.pem"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", keyPath, "-out", certificatePath, "-days", "2", "-subj", "/CN=\(commonName)",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw HTTPServerError(.invalidConfiguration, "cannot run the openssl CLI")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let certificate = try? String(contentsOfFile: certificatePath, encoding: .utf8),
              let key = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
            try? fileManager.removeItem(atPath: directory)
            throw HTTPServerError(.invalidConfiguration, "openssl could not make the test certificate")
        }
        return TestCertificate(certificatePEM: certificate, privateKeyPEM: key,
                               certificatePath: certificatePath, directory: directory)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
