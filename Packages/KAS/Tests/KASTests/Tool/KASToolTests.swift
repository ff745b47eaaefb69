import Foundation
@testable import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis
import MediaDRMJSON
import Testing

extension ToolTests {
    @Suite struct KASToolTests {
        /// A one-letter relative data directory once trapped in Foundation's path handling.
        @Test func aOneLetterRelativeDataDirectoryWorks() throws {
            let temp = try TemporaryDirectory()
            let generated = try KASToolHarness.run(["keys", "generate", "--data-dir", "d"], in: temp.path)
            #expect(generated.status == 0, "\(generated.stderr)")
            #expect(fileMode(temp.appending("d/keys/r1.pem")) == 0o600)
            #expect(SecureFiles.split("d") == ("", "d"))
            #expect(SecureFiles.split("d/") == ("", "d"))
            #expect(SecureFiles.split("/d") == ("/", "d"))
            #expect(SecureFiles.split("a/b/c.pem") == ("a/b", "c.pem"))
            #expect(SecureFiles.split("/") == ("/", ""))
        }

        @Test func keysGenerateListAndExportPublic() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            let generated = try KASToolHarness.run(["keys", "generate", "--data-dir", data])
            #expect(generated.status == 0, "\(generated.stderr)")
            #expect(generated.output == "r1 rsa:2048 created\ne1 ec:secp256r1 created\ndev1 ES256 (dev token issuer) created\n"
                    + "l1 offline-license (ES256) created\n")
            #expect(fileMode(data + "/keys") == 0o700)
            #expect(fileMode(data + "/keys/r1.pem") == 0o600)

            let again = try KASToolHarness.run(["keys", "generate", "--data-dir", data])
            #expect(again.status == 0 && again.output.isEmpty)
            #expect(again.stderr.contains("nothing generated"))

            let rotated = try KASToolHarness.run(["keys", "rotate", "--algorithm", "rsa:2048", "--data-dir", data])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            #expect(rotated.output == "r2 rsa:2048 active, retired r1\n")
            let rotatedSigner = try KASToolHarness.run(["keys", "rotate", "--algorithm", "offline-license", "--data-dir", data])
            #expect(rotatedSigner.output == "l2 offline-license active, retired l1\n", "\(rotatedSigner.stderr)")

            let listed = try KASToolHarness.run(["keys", "list", "--data-dir", data])
            #expect(listed.status == 0)
            let rows = listed.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(rows.map { $0.first ?? "" } == ["KID", "r1", "e1", "r2", "dev1", "l1", "l2"])
            #expect(rows[5].prefix(3) == ["l1", "offline-license", "retired"] && rows[6].prefix(3) == ["l2", "offline-license", "active"])
            #expect(rows[1].prefix(3) == ["r1", "rsa:2048", "retired"])
            #expect(rows[3].prefix(3) == ["r2", "rsa:2048", "active"])
            #expect(rows[4].prefix(3) == ["dev1", "ES256", "token-issuer"])

            let json = try KASToolHarness.run(["keys", "list", "--json", "--data-dir", data])
            let entries = try #require(JSONParser.parse(json.stdout).array)
            #expect(entries.compactMap { $0.object?["kid"]?.string } == ["r1", "e1", "r2", "dev1", "l1", "l2"])
            #expect(entries.first?.object?["retired"]?.string != nil)

            let ring = try KeyRing.load(dataDirectory: data)
            for (arguments, expected, kid) in [
                ([String](), "Public-Key: (2048 bit)", "r2"),
                (["--algorithm", "rsa:2048"], "Public-Key: (2048 bit)", "r2"),
                (["--algorithm", "ec:secp256r1"], "prime256v1", "e1"),
                (["--kid", "r1"], "Public-Key: (2048 bit)", "r1"),
            ] {
                let exported = try KASToolHarness.run(["keys", "export-public", "--data-dir", data] + arguments)
                #expect(exported.status == 0, "\(exported.stderr)")
                #expect(exported.output == ring.key(kid: kid)?.publicKeyPEM)
                let pem = try temp.write("public-\(kid).pem", exported.output)
                let parsed = try runProcess("/usr/bin/openssl", ["pkey", "-pubin", "-in", pem, "-noout", "-text"])
                #expect(parsed.status == 0, "\(parsed.stderr)")
                #expect(String(decoding: parsed.stdout, as: UTF8.self).contains(expected), "\(arguments)")
            }

            let removed = try KASToolHarness.run(["keys", "remove", "r1", "--data-dir", data])
            #expect(removed.status == 0 && removed.output == "r1 removed\n")
            let active = try KASToolHarness.run(["keys", "remove", "r2", "--data-dir", data])
            #expect(active.status == 1)
            #expect(active.stderr.contains("active"))
            #expect(try KASToolHarness.run(["keys", "remove", "l2", "--data-dir", data]).status == 1)
            let removedSigner = try KASToolHarness.run(["keys", "remove", "l1", "--data-dir", data])
            #expect(removedSigner.status == 0 && removedSigner.output == "l1 removed\n", "\(removedSigner.stderr)")
            #expect(try KeyRing.load(dataDirectory: data).licenseSigners.map(\.kid) == ["l2"])
        }

        @Test func tokenPrintsOnlyATokenTheVerifierAccepts() throws {
            let temp = try TemporaryDirectory()
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", temp.path]).status == 0)
            let uuid = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
            let beforeMinting = Date()
            let result = try KASToolHarness.run([
                "token", "--sub", "alice", "--ttl", "120", "--data-dir", temp.path,
                "--claims", #"{"entitlements": ["https://example.com/attr/tier/value/premium"], "rentals": {"\#(uuid)": 1767000000}}"#,
            ])
            let afterMinting = Date()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty)
            #expect(result.output.hasSuffix("\n"))
            let token = String(result.output.dropLast())
            #expect(token.split(separator: ".").count == 3 && !token.contains(" ") && !token.contains("\n"))

            let ring = try KeyRing.load(dataDirectory: temp.path)
            let verifier = try BearerTokenVerifier(configuration: KASConfiguration(), keyRing: ring)
            let identity = try verifier.verify(authorizationHeaderValues: ["Bearer \(token)"])
            #expect(identity.subject == "alice")
            #expect(identity.issuer == DevIssuer.issuer)
            #expect(identity.entitlements == ["https://example.com/attr/tier/value/premium"])
            #expect(identity.rentalPurchaseTime(policyUUID: uuid) == 1_767_000_000)
            // --ttl 120 from the moment of minting, which lies between the two readings of the
            // clock around the tool run (`exp` is whole seconds, so the earlier bound is rounded down).
            let expiry = try #require(identity.expiresAt).timeIntervalSince1970
            #expect(expiry >= beforeMinting.timeIntervalSince1970.rounded(.down) + 120)
            #expect(expiry <= afterMinting.timeIntervalSince1970 + 120)

            // KAS_DATA_DIR stands in for --data-dir.
            let viaEnvironment = try KASToolHarness.run(["token", "--sub", "bob"], environment: ["KAS_DATA_DIR": temp.path])
            #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
            #expect(try verifier.verify(token: String(viaEnvironment.output.dropLast())).subject == "bob")
        }

        @Test(arguments: [
            ["frobnicate"],
            [],
            ["keys"],
            ["keys", "frobnicate"],
            ["keys", "rotate", "--algorithm", "rsa:1024"],
            ["keys", "export-public", "--algorithm", "ed25519"],
            ["keys", "remove"],
            ["keys", "list", "--bogus"],
            ["token"],
            ["token", "--sub", "alice", "--ttl", "0"],
            ["token", "--sub", "alice", "--ttl", "soon"],
            ["token", "--sub", "alice", "--claims", "{"],
            ["token", "--sub", "alice", "--claims", "[]"],
            ["token", "--sub", "alice", "--claims", #"{"iss": "me"}"#],
            ["token", "--sub", "alice", "--claims", #"{"exp": 1}"#],
            ["token", "--sub", "alice", "--claims", #"{"entitlements": "premium"}"#],
            ["token", "--sub", "alice", "--claims", #"{"rentals": {"x": 1}}"#],
            ["serve", "--listen", "localhost"],
            ["serve", "--public-url", "kas.example"],
            ["serve", "--unknown"],
        ])
        func usageErrorsExit64(arguments: [String]) throws {
            let temp = try TemporaryDirectory()
            let result = try KASToolHarness.run(arguments + (arguments.count > 1 ? ["--data-dir", temp.path] : []), in: temp.path)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.output.isEmpty)
            #expect(result.stderr.contains("error"))
        }

        @Test func failuresExit1WithAClearMessage() throws {
            let temp = try TemporaryDirectory()
            let list = try KASToolHarness.run(["keys", "list", "--data-dir", temp.path])
            #expect(list.status == 1)
            #expect(list.stderr.contains("kas keys generate"))
            let token = try KASToolHarness.run(["token", "--sub", "alice", "--data-dir", temp.path])
            #expect(token.status == 1 && token.output.isEmpty)

            let config = try temp.write("kas.json", #"{"listen": "127.0.0.1:1", "lisen": "x"}"#)
            let serve = try KASToolHarness.run(["serve", "--config", config, "--data-dir", temp.path])
            #expect(serve.status == 1)
            #expect(serve.stderr.contains("'lisen'"))
        }

        @Test(arguments: [
            ["--help"], ["keys", "--help"], ["keys", "generate", "--help"], ["keys", "rotate", "--help"],
            ["keys", "list", "--help"], ["keys", "export-public", "--help"], ["keys", "remove", "--help"],
            ["token", "--help"], ["serve", "--help"], ["help", "token"],
        ])
        func helpIsAvailableOnEveryVerb(arguments: [String]) throws {
            let result = try KASToolHarness.run(arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.output.contains("USAGE") || result.output.contains("VERBS"), "\(arguments)")
        }

        @Test func serveResolvesFlagsOverEnvironmentOverFile() throws {
            let temp = try TemporaryDirectory()
            let config = try temp.write("kas.json", #"{"listen": "127.0.0.1:1001", "dataDir": "data", "leaseSeconds": 100, "regionHeader": "X-Region"}"#)
            let result = try KASToolHarness.run(
                ["serve", "--config", config, "--listen", "127.0.0.1:3003", "--print-config"],
                environment: ["KAS_LISTEN": "127.0.0.1:2002", "KAS_LEASE_SECONDS": "200", "KAS_LISTN": "typo"])
            #expect(result.status == 0, "\(result.stderr)")
            let printed = try #require(JSONParser.parse(result.stdout).object)
            #expect(printed["listen"] == .string("127.0.0.1:3003"))
            #expect(printed["leaseSeconds"] == .number(200))
            #expect(printed["dataDir"] == .string(URL(fileURLWithPath: temp.path).standardized.path + "/data"))
            #expect(printed["regionHeader"] == .string("X-Region"))
            #expect(printed["publicURL"] == .string("http://127.0.0.1:3003"))
            #expect(result.stderr.contains("KAS_LISTN"))
        }
    }
}
