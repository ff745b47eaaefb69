import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMJSON
import Testing

extension ToolTests {
    /// `kas serve` as an operator runs it: the built binary, real signals, curl as the client.
    @Suite struct KASServeTests {
        /// Starts `kas serve` (`ServedKAS`); returns the process, the address it reported and a
        /// reader of everything it logged.
        private func start(_ arguments: [String], in directory: String) throws -> (Process, String, () -> String) {
            let served = try ServedKAS.start(arguments, in: directory)
            return (served.process, served.address, { served.log })
        }

        private func stop(_ process: Process, signal: Int32) -> Int32 {
            ServedKAS.stop(process, signal: signal)
        }

        @Test func servesHealthAndMetricsThenStopsOnSIGTERM() throws {
            let temp = try TemporaryDirectory()
            let (process, address, log) = try start(["--listen", "127.0.0.1:0"], in: temp.path)
            #expect(address.hasPrefix("http://127.0.0.1:"))
            // No ring in ./kas-data: one was generated so the bare command works.
            #expect(FileManager.default.fileExists(atPath: temp.path + "/kas-data/keys/index.json"))

            let health = try Curl.run([address + "/healthz"])
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
            let metrics = try Curl.run([address + "/metrics"])
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"kas_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
            #expect(try Curl.run([address + "/media/v1/nothing"]).status == 404)

            // The OpenTDF routes are served: the public key is the ring's active RSA key, and a
            // rewrap without a bearer token is refused.
            let publicKey = try Curl.run([address + "/kas/v2/kas_public_key"])
            #expect(publicKey.status == 200)
            let activePEM = try KASToolHarness.run(["keys", "export-public", "--data-dir", temp.path + "/kas-data"])
            #expect(publicKey.text.contains(#""kid":"r1""#))
            #expect(publicKey.text.contains(activePEM.output.split(separator: "\n")[1]))
            let rewrap = try Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", "{}",
                                       address + "/kas.AccessService/Rewrap"])
            #expect(rewrap.status == 401)

            // SIGHUP reloads the ring after a rotation; the server keeps serving.
            #expect(try KASToolHarness.run(["keys", "rotate", "--algorithm", "rsa:2048", "--data-dir", temp.path + "/kas-data"]).status == 0)
            kill(process.processIdentifier, SIGHUP)
            // A bounded poll for the reload event (the bound only limits a failure).
            let reloadDeadline = Date().addingTimeInterval(60)
            while !log().contains("keys_reloaded"), Date() < reloadDeadline { usleep(20_000) }
            #expect(log().contains(#""event":"keys_reloaded","kids":["r1","e1","r2"]"#))
            #expect(try Curl.run([address + "/healthz"]).status == 200)

            #expect(stop(process, signal: SIGTERM) == 0)
            let text = log()
            #expect(text.contains(#""signal":"SIGTERM""#))
            #expect(text.contains(#""event":"stopped""#))
            #expect(try Curl.run(["--max-time", "2", address + "/healthz"]).status == 0)
        }

        @Test func servesHTTPSFromTheConfiguredCertificateAndStopsOnSIGINT() throws {
            let temp = try TemporaryDirectory()
            let certificate = try TestCertificate.generate()
            defer { certificate.remove() }
            let certificateFile = try temp.write("cert.pem", certificate.certificatePEM)
            let keyFile = try temp.write("key.pem", certificate.privateKeyPEM)
            let config = try temp.write("kas.json", """
            {"listen": "127.0.0.1:0", "dataDir": "state", "tlsCert": "cert.pem", "tlsKey": "key.pem",
             "publicURL": "https://kas.example.com"}
            """)
            _ = (certificateFile, keyFile)
            try KeyRing.generate(dataDirectory: temp.path + "/state")
            // Run from another directory than the config's: its relative paths are the config's.
            let elsewhere = temp.appending("elsewhere")
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let (process, address, log) = try start(["--config", config], in: elsewhere)
            #expect(address.hasPrefix("https://127.0.0.1:"))
            #expect(log().contains(#""publicURL":"https://kas.example.com""#))
            let health = try Curl.run(["--cacert", certificate.certificatePath, address + "/healthz"])
            #expect(health.status == 200)
            #expect(stop(process, signal: SIGINT) == 0)
            #expect(log().contains(#""signal":"SIGINT""#))
        }

        /// Issue 8: state survives a `kill -9`. A session is started and a key delivered through
        /// the real binary; after SIGKILL a new `kas serve` on the same data directory finds the
        /// live session (heartbeat, another key) and the first-play record.
        @Test func sessionsAndFirstPlaysSurviveSIGKILL() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", data]).status == 0)
            let exported = try KASToolHarness.run(["keys", "export-public", "--data-dir", data])
            // A fixed loopback public URL: the packaged URL stays accepted whatever port each run gets.
            let publicURL = "http://localhost:9"
            let package = try RealPackage.package(in: temp.path, publicKeyPEM: exported.output, kid: nil, kasURL: publicURL)
            let subject = "survivor-\(UUID().uuidString)"
            let minted = try KASToolHarness.run(["token", "--sub", subject, "--ttl", "600", "--data-dir", data,
                                                 "--claims", #"{"entitlements":["\#(RealPackage.attribute)"]}"#])
            #expect(minted.status == 0, "\(minted.stderr)")
            let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let arguments = ["--listen", "127.0.0.1:0", "--data-dir", data, "--public-url", publicURL]

            func post(_ address: String, _ path: String, _ body: Data) throws -> CurlResult {
                try Curl.run(["-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                              "--data-binary", "@-", address + path], stdin: body)
            }
            func keyRequest(_ address: String, _ session: String) throws -> CurlResult {
                try post(address, "/media/v1/key-request", JSONWriter.write(.object(JSONObject([
                    ("assetId", .string(package.policyUUID)), ("component", "video"), ("sessionId", .string(session)),
                    ("tdfManifest", .string(Base64.encode(package.manifestBytes))),
                    ("clientPublicKey", .string(try ECP256.KeyAgreement.PrivateKey().publicKey.pemRepresentation)),
                ]))))
            }

            let (first, address, _) = try start(arguments, in: temp.path)
            let beforeFirstPlay = Date()
            let started = try post(address, "/media/v1/session/start", JSONWriter.write(.object(JSONObject([
                ("assetId", .string(package.policyUUID)), ("protocol", "tdf"), ("playbackId", "survivor"),
            ]))))
            #expect(started.status == 200, "\(started.text)")
            let session = try #require(try JSONParser.parse(started.body).object?["sessionId"]?.string)
            let delivered = try keyRequest(address, session)
            #expect(delivered.status == 200, "\(delivered.text)")
            let afterFirstPlay = Date()
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            #expect(first.terminationReason == .uncaughtSignal)

            let (second, again, log) = try start(arguments, in: temp.path)
            let beat = try post(again, "/media/v1/session/\(session)/heartbeat", Data())
            #expect(beat.status == 200, "the live session survived: \(beat.text)")
            #expect(try keyRequest(again, session).status == 200)
            #expect(try Curl.run([again + "/metrics"]).text.contains("kas_media_active_sessions 1\n"))
            // The first play was recorded before the kill (read from another connection, as WAL allows).
            let store = try SQLiteMediaStore(path: KASDataDirectory(data).mediaStore)
            let firstPlay = try #require(try store.firstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: subject), asset: package.policyUUID))
            // Recorded between the two readings of the clock around the first play (whole seconds
            // at most: the earlier bound is rounded down).
            #expect(firstPlay.timeIntervalSince1970 >= beforeFirstPlay.timeIntervalSince1970.rounded(.down))
            #expect(firstPlay <= afterFirstPlay)
            store.close()
            let audit = try String(contentsOfFile: KASDataDirectory(data).auditLog, encoding: .utf8)
            #expect(audit.components(separatedBy: #""reason":"key_delivered""#).count - 1 == 2)
            #expect(!audit.contains(session) && !audit.contains(token))

            #expect(stop(second, signal: SIGTERM) == 0)
            #expect(log().contains(#""event":"stopped""#))
            // A clean stop closed the store: the WAL was checkpointed and truncated.
            #expect(try writeAheadLogBytes(KASDataDirectory(data).mediaStore + "-wal") == 0)
        }

        @Test func startFailuresExit1() throws {
            let temp = try TemporaryDirectory()
            let missingTLS = try KASToolHarness.run(["serve", "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/c.pem",
                                                     "--tls-key", "/nonexistent/k.pem", "--data-dir", temp.path])
            #expect(missingTLS.status == 1)
            #expect(missingTLS.stderr.contains("/nonexistent/c.pem"))

            let onlyCert = try KASToolHarness.run(["serve", "--tls-cert", "c.pem", "--data-dir", temp.path])
            #expect(onlyCert.status == 1)
            #expect(onlyCert.stderr.contains("tlsKey"))

            let hostName = try KASToolHarness.run(["serve", "--listen", "kas.example.com:8443", "--data-dir", temp.path])
            #expect(hostName.status == 1)

            // Plain http beyond loopback is a URL no fps-v2 reader admits: refused at start.
            let plainHTTP = try KASToolHarness.run(["serve", "--listen", "127.0.0.1:0", "--public-url", "http://kas.example.com",
                                                    "--data-dir", temp.path])
            #expect(plainHTTP.status == 1)
            #expect(plainHTTP.stderr.contains("acceptedKASURLs"))

            // A corrupt ring is reported, not regenerated over.
            try KeyRing.generate(dataDirectory: temp.path)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: temp.path + "/keys/index.json"))
            let corrupt = try KASToolHarness.run(["serve", "--listen", "127.0.0.1:0", "--data-dir", temp.path])
            #expect(corrupt.status == 1)
            #expect(corrupt.stderr.contains("index.json"))
        }
    }
}
