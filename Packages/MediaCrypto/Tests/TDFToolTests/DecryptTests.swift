import Foundation
import Testing

/// A TDF written by a real OpenTDF client (otdf-python 0.11.0, which fetches the KAS public key
/// itself from Tools/python/stub_kas.py) opened by `tdf decrypt` with the KAS private key.
@Suite struct DecryptTests {
    /// A running stub_kas.py. It serves until its stdin closes, so stopping it needs no signal
    /// (a child can inherit a blocked SIGTERM from the test runner's threads).
    struct StubKAS {
        let process: Process
        let stdin: Pipe
        let port: Int

        func stop() {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// Starts stub_kas.py serving `publicKey` and reads the port it prints.
    func startStubKAS(publicKey: String) throws -> StubKAS {
        let process = Process()
        process.executableURL = try ToolHarness.python()
        process.arguments = [try ToolHarness.script("stub_kas.py"), "--rsa-public-key", publicKey, "--kid", "r1",
                             "--stop-on-stdin-eof"]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let stub = StubKAS(process: process, stdin: stdin, port: Int(text) ?? 0)
        guard stub.port > 0 else {
            stub.stop()
            throw ToolHarness.Failure("stub_kas.py did not print its port (got '\(text)')")
        }
        return stub
    }

    @Test func otdfPythonTDFDecrypts() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.rsa)
        let (input, plaintext) = try work.randomFile("movie.bin", count: 3 * 100_000 + 7)
        let stub = try startStubKAS(publicKey: work.path("rsa.pub"))
        defer { stub.stop() }
        let port = stub.port
        let encrypt = try ToolHarness.python("otdf_encrypt.py", [
            input, "-o", work.path("movie.tdf"), "--platform", "http://127.0.0.1:\(port)",
            "--attribute", "https://example.com/attr/tier/value/gold", "--segment-size", "100000",
        ])
        try #require(encrypt.status == 0, "otdf-python could not encrypt: \(encrypt.stderr)")

        let decrypt = try ToolHarness.tdf(["decrypt", work.path("movie.tdf"), "-o", work.path("movie.out"),
                                          "--kas-private-key", work.path("rsa.pem")])
        try #require(decrypt.status == 0, "tdf decrypt refused the otdf-python TDF: \(decrypt.stderr)")
        #expect(try work.read("movie.out") == plaintext)

        let inspect = try ToolHarness.tdf(["inspect", work.path("movie.tdf"), "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any])
        let segments = try #require(summary["segments"] as? [String: Any])
        #expect(segments["count"] as? Int == 4)
        let keyAccess = try #require(summary["keyAccess"] as? [[String: Any]])
        #expect(keyAccess.first?["url"] as? String == "http://127.0.0.1:\(port)/kas")
        #expect(keyAccess.first?["kid"] as? String == "r1")
    }

    @Test func wrongKeyTamperingAndGarbageFailWithoutOutput() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.rsa)
        try work.makeKeyPair(.ec)
        let (input, _) = try work.randomFile("in.bin", count: 50_000)
        let encrypt = try ToolHarness.tdf(["encrypt", input, "-o", work.path("in.tdf"), "--kas-url", "https://kas.example.com",
                                          "--kas-public-key", work.path("rsa.pub"), "--segment-size", "8192"])
        try #require(encrypt.status == 0, "\(encrypt.stderr)")

        // A P-256 key cannot open an RSA-wrapped key.
        let wrongKey = try ToolHarness.tdf(["decrypt", work.path("in.tdf"), "-o", work.path("out.bin"),
                                           "--kas-private-key", work.path("ec.pem")])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stderr.hasPrefix("tdf: error: "))
        #expect(wrongKey.stderr.contains("in.tdf"))

        // One flipped payload byte: the archive CRC or the segment authentication must catch it.
        var archive = try work.read("in.tdf")
        archive[20_000] ^= 0x01
        _ = try work.write("tampered.tdf", archive)
        let tampered = try ToolHarness.tdf(["decrypt", work.path("tampered.tdf"), "-o", work.path("out.bin"),
                                           "--kas-private-key", work.path("rsa.pem")])
        #expect(tampered.status == 1)
        #expect(tampered.stderr.contains("tampered.tdf"))

        _ = try work.write("garbage.tdf", Data("not a zip archive".utf8))
        let garbage = try ToolHarness.tdf(["decrypt", work.path("garbage.tdf"), "-o", work.path("out.bin"),
                                          "--kas-private-key", work.path("rsa.pem")])
        #expect(garbage.status == 1)
        #expect(garbage.stderr.contains("garbage.tdf"))

        #expect(!work.exists("out.bin"))
        #expect(try work.entries().allSatisfy { !$0.hasPrefix(".") }, "a temporary output was left behind")
    }
}
