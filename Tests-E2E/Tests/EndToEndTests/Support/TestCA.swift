import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// A private certificate authority made with the openssl CLI once per run, and a server
/// certificate it issued for 127.0.0.1 and localhost. Clients trust only `caFile`: the TLS
/// handshake verifies a real chain, not a pinned self-signed leaf.
enum TestCA {
    struct Material: Sendable {
        let caFile: String
        let certificateFile: String
        let keyFile: String
        let certificatePEM: String
        let privateKeyPEM: String
    }

    static let material: Result<Material, TestFailure> = {
        let dir = Scratch.directory("test-ca")
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        let extensions = dir + "/server.ext"
        let steps: [[String]] = [
            ["req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", dir + "/ca.pem", "-days", "2",
                                     "-subj", "/CN=mediadrm end-to-end test CA",
                                     "-addext", "basicConstraints=critical,CA:TRUE",
                                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req"] + ec + ["-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.pem", "-CAkey", dir + "/ca.key",
             "-CAcreateserial", "-days", "2", "-out", dir + "/server.pem", "-extfile", extensions],
        ]
        do {
            try Data("""
                basicConstraints=CA:FALSE
                keyUsage=critical,digitalSignature
                extendedKeyUsage=serverAuth
                subjectAltName=IP:127.0.0.1,DNS:localhost

                """.utf8).write(to: URL(fileURLWithPath: extensions))
            for arguments in steps {
                let result = try run(Tools.openssl, arguments)
                guard result.status == 0 else { return .failure(TestFailure("openssl \(arguments[0]) failed: \(result.stderr)")) }
            }
            return .success(Material(caFile: dir + "/ca.pem", certificateFile: dir + "/server.pem", keyFile: dir + "/server.key",
                                     certificatePEM: try String(contentsOfFile: dir + "/server.pem", encoding: .utf8),
                                     privateKeyPEM: try String(contentsOfFile: dir + "/server.key", encoding: .utf8)))
        } catch {
            return .failure(TestFailure("cannot make the test CA: \(error)"))
        }
    }()

    /// `sha256//…` of the public key of the certificate in `file`: what `player --pin` takes.
    static func pin(ofCertificate file: String) throws -> String {
        let pem = try run(Tools.openssl, ["x509", "-in", file, "-pubkey", "-noout"])
        try pem.check("openssl x509 -pubkey")
        let der = try run(Tools.openssl, ["pkey", "-pubin", "-outform", "der"], input: pem.stdout)
        try der.check("openssl pkey -outform der")
        return "sha256//" + Base64.encode(Data(SHA256Digest.hash(data: der.stdout)))
    }
}
