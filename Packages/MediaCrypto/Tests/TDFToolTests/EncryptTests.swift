import Foundation
import Testing

/// `tdf encrypt` output opened by the independent Python decryptor (Tools/python/tdf_decrypt.py:
/// `cryptography` OAEP-SHA1 or ECDH+HKDF unwrap, binding, GMAC hashes and root signature recomputed).
@Suite struct EncryptTests {
    @Test(arguments: Workspace.KeyKind.allCases)
    func independentDecryptorOpensMultiSegmentTDF(kind: Workspace.KeyKind) throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(kind)
        // 5 full segments and a partial one.
        let (input, plaintext) = try work.randomFile("clip.bin", count: 5 * 65_536 + 1_234)
        let policy = try work.write("policy.json", Data(#"{"uuid":"3c9a1f5e-2b7d-4e8a-9f10-5a6b7c8d9e0f","body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/gold"}],"dissem":["viewer@example.com"]}}"#.utf8))

        let encrypt = try ToolHarness.tdf([
            "encrypt", input, "-o", work.path("clip.tdf"),
            "--kas-url", "https://kas.example.com", "--kas-public-key", work.path("\(kind.rawValue).pub"),
            "--kid", "k-\(kind.rawValue)", "--policy", policy,
            "--attribute", "https://example.com/attr/region/value/eu",
            "--segment-size", "65536", "--mime-type", "video/mp4",
        ])
        #expect(encrypt.status == 0, "tdf encrypt failed: \(encrypt.stderr)")
        #expect(encrypt.stdout.isEmpty)

        let decrypt = try ToolHarness.python("tdf_decrypt.py", [
            work.path("clip.tdf"), "--private-key", work.path("\(kind.rawValue).pem"),
            "-o", work.path("clip.out"), "--kid", "k-\(kind.rawValue)", "--report",
        ])
        try #require(decrypt.status == 0, "tdf_decrypt.py refused our TDF: \(decrypt.stderr)")
        #expect(try work.read("clip.out") == plaintext)
        let report = try #require(try JSONSerialization.jsonObject(with: decrypt.stdout) as? [String: Any])
        #expect(report["segments"] as? Int == 6)
        #expect(report["bytes"] as? Int == plaintext.count)
        #expect(report["schemaVersion"] as? String == "4.3.0")
        // docs/formats.md "Cryptographic conventions": Standard TDF writers emit base64(hex(HMAC)), as the OpenTDF Go SDK does.
        #expect(report["policyBindingForm"] as? String == "hex")
    }

    /// The independent decryptor is shown refusing, not only accepting: a copy of a TDF with a
    /// broken policy binding, and one with a changed ciphertext byte (Tools/python/tdf_tamper.py
    /// rewrites a well-formed ZIP, so only the TDF checks can catch either), each refused with
    /// its own reason and no output written.
    @Test(arguments: Workspace.KeyKind.allCases)
    func independentDecryptorRefusesATamperedBindingAndATamperedSegment(kind: Workspace.KeyKind) throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(kind)
        let (input, _) = try work.randomFile("clip.bin", count: 3 * 4096 + 100)
        let encrypt = try ToolHarness.tdf([
            "encrypt", input, "-o", work.path("clip.tdf"), "--kas-url", "https://kas.example.com",
            "--kas-public-key", work.path("\(kind.rawValue).pub"), "--segment-size", "4096", "--quiet",
        ])
        try #require(encrypt.status == 0, "tdf encrypt failed: \(encrypt.stderr)")
        // The untampered file opens, so each refusal below is the defect's.
        let intact = try ToolHarness.python("tdf_decrypt.py", [work.path("clip.tdf"), "--private-key", work.path("\(kind.rawValue).pem"),
                                                               "-o", work.path("intact.out")])
        try #require(intact.status == 0, "tdf_decrypt.py refused the untampered TDF: \(intact.stderr)")

        let cases: [(defect: [String], reason: String)] = [
            (["--policy-binding"], ".policyBinding does not match the policy"),
            (["--segment", "1"], "payload: segment 1 failed AES-GCM authentication"),
        ]
        for (defect, reason) in cases {
            let tampered = work.path("tampered.tdf"), output = work.path("tampered.out")
            let tamper = try ToolHarness.python("tdf_tamper.py", [work.path("clip.tdf"), "-o", tampered] + defect)
            try #require(tamper.status == 0, "tdf_tamper.py \(defect): \(tamper.stderr)")
            let refused = try ToolHarness.python("tdf_decrypt.py", [tampered, "--private-key", work.path("\(kind.rawValue).pem"),
                                                                    "-o", output])
            #expect(refused.status == 1, "\(defect)")
            #expect(refused.stderr.hasPrefix("tdf_decrypt: error: ") && refused.stderr.contains(reason), "\(defect): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(defect): output written")
        }
    }

    @Test func emptyAndSingleByteFilesRoundTrip() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.rsa)
        for count in [0, 1] {
            let (input, plaintext) = try work.randomFile("small\(count).bin", count: count)
            let encrypt = try ToolHarness.tdf([
                "encrypt", input, "-o", work.path("small\(count).tdf"),
                "--kas-url", "http://127.0.0.1:8080/kas", "--kas-public-key", work.path("rsa.pub"),
            ])
            #expect(encrypt.status == 0, "tdf encrypt failed: \(encrypt.stderr)")
            let decrypt = try ToolHarness.python("tdf_decrypt.py", [
                work.path("small\(count).tdf"), "--private-key", work.path("rsa.pem"), "-o", work.path("small\(count).out"),
            ])
            #expect(decrypt.status == 0, "tdf_decrypt.py refused our TDF: \(decrypt.stderr)")
            #expect(try work.read("small\(count).out") == plaintext)
        }
    }

    @Test func ourOwnDecryptRoundTrips() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.ec)
        let (input, plaintext) = try work.randomFile("in.bin", count: 100_000)
        let encrypt = try ToolHarness.tdf([
            "encrypt", input, "-o", work.path("in.tdf"), "--kas-url", "https://kas.example.com",
            "--kas-public-key", work.path("ec.pub"), "--segment-size", "4096", "--quiet",
        ])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        #expect(encrypt.stderr.isEmpty)
        let decrypt = try ToolHarness.tdf(["decrypt", work.path("in.tdf"), "-o", work.path("out.bin"),
                                          "--kas-private-key", work.path("ec.pem")])
        #expect(decrypt.status == 0, "\(decrypt.stderr)")
        #expect(try work.read("out.bin") == plaintext)
    }
}
