import Foundation
import Testing

@Suite struct InspectTests {
    @Test func jsonSummaryParsesAndHidesSecrets() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.ec)
        let (input, _) = try work.randomFile("in.bin", count: 10_000)
        let encrypt = try ToolHarness.tdf([
            "encrypt", input, "-o", work.path("in.tdf"), "--kas-url", "https://kas.example.com/kas",
            "--kas-public-key", work.path("ec.pub"), "--kid", "e1", "--segment-size", "4000",
            "--attribute", "https://example.com/attr/a/value/1", "--attribute", "https://example.com/attr/b/value/2",
            "--mime-type", "video/mp4",
        ])
        try #require(encrypt.status == 0, "\(encrypt.stderr)")

        let result = try ToolHarness.tdf(["inspect", work.path("in.tdf"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(summary["schemaVersion"] as? String == "4.3.0")
        #expect(summary["mimeType"] as? String == "video/mp4")
        #expect(summary["algorithm"] as? String == "AES-256-GCM")

        let keyAccess = try #require(summary["keyAccess"] as? [[String: Any]])
        #expect(keyAccess.count == 1)
        #expect(keyAccess.first?["type"] as? String == "ec-wrapped")
        #expect(keyAccess.first?["url"] as? String == "https://kas.example.com/kas")
        #expect(keyAccess.first?["kid"] as? String == "e1")

        let policy = try #require(summary["policy"] as? [String: Any])
        #expect((policy["uuid"] as? String)?.count == 36)
        #expect(policy["dataAttributes"] as? [String] == ["https://example.com/attr/a/value/1", "https://example.com/attr/b/value/2"])

        let integrity = try #require(summary["integrity"] as? [String: Any])
        #expect(integrity["segmentHashAlg"] as? String == "GMAC")
        #expect(integrity["rootSignatureAlg"] as? String == "HS256")
        let segments = try #require(summary["segments"] as? [String: Any])
        #expect(segments["count"] as? Int == 3)
        #expect(segments["plaintextBytes"] as? Int == 10_000)

        // Wrapped keys, bindings and signatures never appear in full.
        let manifest = try unzipManifest(work.path("in.tdf"))
        for secret in try manifestSecrets(manifest) {
            #expect(!result.stdoutText.contains(secret))
        }

        let text = try ToolHarness.tdf(["inspect", work.path("in.tdf")])
        #expect(text.status == 0)
        #expect(text.stdoutText.contains("https://kas.example.com/kas"))
        #expect(text.stdoutText.contains("ec-wrapped"))
        for secret in try manifestSecrets(manifest) {
            #expect(!text.stdoutText.contains(secret))
        }
    }

    /// The manifest as stored, read with the system `unzip` (independent of our ZIP reader).
    func unzipManifest(_ path: String) throws -> [String: Any] {
        let result = try ToolHarness.run(URL(fileURLWithPath: "/usr/bin/unzip"), ["-p", path, "0.manifest.json"])
        try #require(result.status == 0, "unzip failed: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    func manifestSecrets(_ manifest: [String: Any]) throws -> [String] {
        let info = try #require(manifest["encryptionInformation"] as? [String: Any])
        let access = try #require((info["keyAccess"] as? [[String: Any]])?.first)
        let binding = try #require(access["policyBinding"] as? [String: Any])
        let integrity = try #require(info["integrityInformation"] as? [String: Any])
        let root = try #require(integrity["rootSignature"] as? [String: Any])
        return [
            try #require(access["wrappedKey"] as? String),
            try #require(binding["hash"] as? String),
            try #require(root["sig"] as? String),
        ]
    }
}
