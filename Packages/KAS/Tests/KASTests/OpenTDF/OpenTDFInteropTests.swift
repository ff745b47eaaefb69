import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Testing

private let gold = "https://example.com/attr/tier/value/gold"

/// otdf-python 0.11.0 (a real OpenTDF client, from the project venv) against the assembled KAS
/// (`KASTestHarness`: the same application `kas serve` runs, with its configuration-built token
/// verifier, middleware, store and audit log): it encrypts through the Connect PublicKey route
/// and decrypts through the Connect Rewrap route with a dev-issuer bearer token.
@Suite(.serialized) struct OpenTDFInteropTests {
    private func run(_ python: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try runProcess(python, [ProjectPython.script("otdf_roundtrip.py")] + arguments)
        if result.stderr.contains("No module named") {
            throw ProjectPython.Failure("otdf-python is not installed in \(python): run make deps (\(result.stderr))")
        }
        return (result.status, result.stderr)
    }

    @Test func otdfPythonEncryptsAndDecryptsThroughTheConnectRoutes() throws {
        let python = try ProjectPython.interpreter()
        let kas = try KASTestHarness()
        let platform = kas.baseURL
        let rsaKID = try #require(kas.keyRing.active(.rsa2048)?.kid)
        let files = try TemporaryDirectory("kas-otdf-interop")
        var bytes = [UInt8](repeating: 0, count: 300_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 9) }
        let plaintext = Data(bytes)
        let input = files.appending("plain.bin")
        try plaintext.write(to: URL(fileURLWithPath: input))
        let alice = try kas.token(sub: "alice", entitlements: [gold])

        let tdf = files.appending("plain.bin.tdf")
        let encrypt = try run(python, ["encrypt", input, "-o", tdf, "--platform", platform, "--token", alice, "--attribute", gold])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        let archive = try Data(contentsOf: URL(fileURLWithPath: tdf))
        // The manifest names this KAS's active RSA key.
        let archiveText = String(decoding: archive, as: UTF8.self)
        #expect(archiveText.contains("\"kid\": \"\(rsaKID)\"") || archiveText.contains("\"kid\":\"\(rsaKID)\""))

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
        let eve = try kas.token(sub: "eve", entitlements: ["https://example.com/attr/tier/value/silver"])
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

        // No token reached the client's error output, nor the KAS's request log.
        for text in refusals + kas.log.lines {
            #expect(!text.contains(alice) && !text.contains(eve))
        }
    }
}
