import Foundation
import KASDomain
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMTDF
import Testing

extension ToolTests {
    /// `kas keys seal | unseal` as an operator runs them, and a sealed ring served.
    @Suite struct KASKeysSealTests {
        @Test func sealedRingServesExportsAndRewraps() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            let kek = temp.appending("kas-seal.key")
            try AtomicFileWriter.write(try SecureRandom.data(count: 32), to: kek, mode: 0o600)
            let withKey = ["KAS_KEY_RING_SEAL_KEY_FILE": kek]
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", data]).status == 0)
            let plainExport = try KASToolHarness.run(["keys", "export-public", "--data-dir", data])

            let sealed = try KASToolHarness.run(["keys", "seal", "--data-dir", data], environment: withKey)
            #expect(sealed.status == 0, "\(sealed.stderr)")
            let export = try KASToolHarness.run(["keys", "export-public", "--data-dir", data], environment: withKey)
            #expect(export.status == 0 && export.stdout == plainExport.stdout)
            let rotated = try KASToolHarness.run(["keys", "rotate", "--algorithm", "ec:secp256r1", "--data-dir", data],
                                                 environment: withKey)
            #expect(rotated.status == 0, "\(rotated.stderr)")
            let e2 = try Data(contentsOf: URL(fileURLWithPath: data + "/keys/e2.pem"))
            #expect(e2.starts(with: Array("KASSEAL".utf8)))
            let token = try KASToolHarness.run(["token", "--sub", "sealed", "--data-dir", data], environment: withKey)
            #expect(token.status == 0, "\(token.stderr)")

            // Served: a real media key request is answered from the sealed ring.
            let ring = try KeyRing.load(dataDirectory: data, sealKey: try #require(try KeyRingSealKey.resolve(environment: withKey)))
            let kas = try KASTestHarness(dataDirectory: data, sealKey: ring.sealKey)
            defer { kas.stop() }
            #expect(kas.keyRing.isSealed)
            let bearer = try kas.token(sub: "sealed-rewrap", entitlements: [MediaRewrapRouteTests.attribute])
            let stream = try MediaRewrapRouteTests.Stream(kas, count: 1)
            let session = try MediaRewrapRouteTests.session(kas, token: bearer, asset: stream.uuid)
            let client = try ECP256.KeyAgreement.PrivateKey()
            let answer = try MediaRewrapRouteTests.post(kas, "/media/v1/rewrap", token: bearer,
                                                        stream.body(session: session, clientKey: client.publicKey.pemRepresentation))
            #expect(answer.status == 200, "\(answer.text)")
            let object = try #require(try JSONParser.parse(answer.body).object)
            let sessionKey = try ECP256.KeyAgreement.PublicKey(pemRepresentation: try #require(object["sessionPublicKey"]?.string))
            let result = try #require(object["responses"]?.array?.first?.object?["results"]?.array?.first?.object)
            let wrapped = try Base64.decode(try #require(result["kasWrappedKey"]?.string))
            #expect(try ECWrap.unwrap(wrapped, ephemeralPublicKey: sessionKey, with: client) == stream.keys[0])
            // SIGHUP's reload keeps opening the sealed ring.
            #expect(try kas.application.keyRing.reload().isSealed)
        }

        /// `kas serve` as the systemd unit runs it: the key from `$CREDENTIALS_DIRECTORY/kas-seal-key`;
        /// a rotation while sealed is picked up on SIGHUP and served.
        @Test func servedWithTheCredentialReloadsASealedRotation() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            let credentials = temp.appending("credentials")
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            let key = try SecureRandom.data(count: 32)
            try AtomicFileWriter.write(key, to: credentials + "/kas-seal-key", mode: 0o400)
            let credential = ["CREDENTIALS_DIRECTORY": credentials]
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", data]).status == 0)
            #expect(try KASToolHarness.run(["keys", "seal", "--data-dir", data], environment: credential).status == 0)

            let served = try ServedKAS.start(["--listen", "127.0.0.1:0", "--data-dir", data], in: temp.path, environment: credential)
            defer { served.stop() }
            let rotated = try KASToolHarness.run(["keys", "rotate", "--algorithm", "ec:secp256r1", "--data-dir", data],
                                                 environment: ["KAS_KEY_RING_SEAL_KEY": key.base64EncodedString()])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            kill(served.process.processIdentifier, SIGHUP)
            // A bounded poll for the reload (the bound only limits a failure).
            let deadline = Date().addingTimeInterval(60)
            while !served.log.contains("keys_reloaded"), Date() < deadline { usleep(20_000) }
            #expect(served.log.contains("keys_reloaded") && !served.log.contains("keys_reload_failed"), "\(served.log)")
            let e2 = try Curl.run([served.address + "/kas/v2/kas_public_key?algorithm=ec:secp256r1&kid=e2"])
            #expect(e2.status == 200, "\(e2.text)")
            #expect(!served.log.contains(key.base64EncodedString()))
        }

        @Test func sealedRingWithoutOrWithAWrongKeyRefusesToStart() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            let key = try SecureRandom.data(count: 32)
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", data]).status == 0)
            #expect(try KASToolHarness.run(["keys", "seal", "--data-dir", data],
                                           environment: ["KAS_KEY_RING_SEAL_KEY": key.base64EncodedString()]).status == 0)
            let wrong = ["KAS_KEY_RING_SEAL_KEY": try SecureRandom.data(count: 32).base64EncodedString()]
            let runs: [(arguments: [String], environment: [String: String], message: String)] = [
                (["serve", "--listen", "127.0.0.1:0", "--data-dir", data], [:], "the key ring is sealed: set KAS_KEY_RING_SEAL_KEY_FILE"),
                (["serve", "--listen", "127.0.0.1:0", "--data-dir", data], wrong, "the key-encryption key does not open the key ring"),
                (["keys", "export-public", "--data-dir", data], [:], "the key ring is sealed: set KAS_KEY_RING_SEAL_KEY_FILE"),
                (["keys", "rotate", "--data-dir", data], wrong, "the key-encryption key does not open the key ring"),
                (["token", "--sub", "x", "--data-dir", data], [:], "the key ring is sealed: set KAS_KEY_RING_SEAL_KEY_FILE"),
                (["keys", "unseal", "--data-dir", data], wrong, "the key-encryption key does not open the key ring"),
                (["keys", "seal", "--data-dir", data], [:], "no key-encryption key: set KAS_KEY_RING_SEAL_KEY_FILE"),
            ]
            for run in runs {
                let result = try KASToolHarness.run(run.arguments, environment: run.environment)
                #expect(result.status != 0, "\(run.arguments)")
                #expect(result.stderr.contains(run.message), "\(run.arguments): \(result.stderr)")
                for kid in ["r1", "e1", "dev1", "l1"] {
                    #expect(!result.stderr.contains("\(kid).pem") && !result.stderr.contains("'\(kid)'"), "\(result.stderr)")
                }
                #expect(!result.stderr.contains(key.base64EncodedString()) && !result.stderr.contains(wrong.values.first!))
            }
            #expect(!FileManager.default.fileExists(atPath: data + "/keys/r2.pem"))
        }
    }
}
