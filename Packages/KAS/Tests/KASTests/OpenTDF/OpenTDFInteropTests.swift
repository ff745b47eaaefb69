import Foundation
import Testing
@testable import KAS

private let gold = "https://example.com/attr/tier/value/gold"

/// otdf-python 0.11.0 (a real OpenTDF client, from the project venv) against the real server:
/// it encrypts through the Connect PublicKey route and decrypts through the Connect Rewrap
/// route with a dev-issuer bearer token.
@Suite(.serialized) struct OpenTDFInteropTests {
    /// MEDIADRM_PYTHON, else `<repo root>/.venv/bin/python` (what `make deps` creates).
    static func python() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MEDIADRM_PYTHON"], !path.isEmpty, FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let venv = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw InteropFailure("no Python interpreter with otdf-python (MEDIADRM_PYTHON unset and \(venv) missing): run make deps")
        }
        return venv
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var script: String { repositoryRoot.appendingPathComponent("Tools/python/otdf_roundtrip.py").path }

    struct InteropFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func run(_ python: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try runProcess(python, [Self.script] + arguments)
        if result.stderr.contains("No module named") {
            throw InteropFailure("otdf-python is not installed in \(python): run make deps (\(result.stderr))")
        }
        return (result.status, result.stderr)
    }

    @Test func otdfPythonEncryptsAndDecryptsThroughTheConnectRoutes() throws {
        let python = try Self.python()
        let kas = try OpenTDFTestKAS()
        let platform = kas.server.baseURL.absoluteString
        let files = try TemporaryDirectory("kas-otdf-interop")
        var bytes = [UInt8](repeating: 0, count: 300_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 9) }
        let plaintext = Data(bytes)
        let input = files.appending("plain.bin")
        try plaintext.write(to: URL(fileURLWithPath: input))
        let alice = try kas.token(subject: "alice", entitlements: [gold])

        let tdf = files.appending("plain.bin.tdf")
        let encrypt = try run(python, ["encrypt", input, "-o", tdf, "--platform", platform, "--token", alice, "--attribute", gold])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        let archive = try Data(contentsOf: URL(fileURLWithPath: tdf))
        // The manifest names this KAS's active RSA key.
        #expect(String(decoding: archive, as: UTF8.self).contains("\"kid\": \"\(kas.rsaKey?.kid ?? "?")\"")
                || String(decoding: archive, as: UTF8.self).contains("\"kid\":\"\(kas.rsaKey?.kid ?? "?")\""))

        // The entitled viewer decrypts, byte-identical.
        let output = files.appending("decrypted.bin")
        let decrypt = try run(python, ["decrypt", tdf, "-o", output, "--platform", platform, "--token", alice])
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == plaintext)

        // No token: refused (401, Connect unauthenticated), nothing written.
        let noToken = files.appending("no-token.bin")
        let missing = try run(python, ["decrypt", tdf, "-o", noToken, "--platform", platform])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("bearer token is required"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: noToken))

        // A viewer without the attribute: the KAS answers fail/forbidden for the object.
        let eve = try kas.token(subject: "eve", entitlements: ["https://example.com/attr/tier/value/silver"])
        let notEntitled = files.appending("eve.bin")
        let denied = try run(python, ["decrypt", tdf, "-o", notEntitled, "--platform", platform, "--token", eve])
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("forbidden"), "\(denied.stderr)")
        #expect(!FileManager.default.fileExists(atPath: notEntitled))

        // The policy rewritten without the attribute: the binding no longer verifies, so even a
        // viewer who needs no attribute gets nothing (and neither does the entitled one).
        let tampered = files.appending("tampered.tdf")
        let tamper = try run(python, ["tamper-policy", tdf, "-o", tampered])
        #expect(tamper.status == 0, "\(tamper.stderr)")
        var refusals = [missing.stderr, denied.stderr]
        for token in [eve, alice] {
            let out = files.appending("tampered-\(UUID().uuidString).bin")
            let refused = try run(python, ["decrypt", tampered, "-o", out, "--platform", platform, "--token", token])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("policy binding does not verify"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
            refusals.append(refused.stderr)
        }

        // No token reached the client's error output.
        for text in refusals {
            #expect(!text.contains(alice) && !text.contains(eve))
        }
    }
}
