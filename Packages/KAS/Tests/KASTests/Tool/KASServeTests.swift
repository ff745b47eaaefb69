import Foundation
import JSON
import Testing
@testable import KAS

extension ToolTests {
    /// `kas serve` as an operator runs it: the built binary, real signals, curl as the client.
    @Suite struct KASServeTests {
        /// Starts `kas serve` and waits for its `listening` log line; returns the process, the
        /// address it reported and a reader of everything it logged.
        private func start(_ arguments: [String], in directory: String) throws -> (Process, String, () -> String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try KASToolHarness.executable())
            process.arguments = ["serve"] + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }
            let logPath = (directory as NSString).appendingPathComponent("serve.log")
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardError = log
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let read = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline, process.isRunning {
                for line in read().split(separator: "\n") where line.contains(#""event":"listening""#) {
                    let object = try #require(JSONParser.parse(Data(line.utf8)).object)
                    return (process, try #require(object["address"]?.string), read)
                }
                usleep(50_000)
            }
            if process.isRunning { process.terminate() }
            throw KASToolHarness.Failure(description: "kas serve did not start: \(read())")
        }

        private func stop(_ process: Process, signal: Int32) -> Int32 {
            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
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
            let reloadDeadline = Date().addingTimeInterval(10)
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
            let (process, address, log) = try start(["--config", config], in: "/")
            #expect(address.hasPrefix("https://127.0.0.1:"))
            #expect(log().contains(#""publicURL":"https://kas.example.com""#))
            let health = try Curl.run(["--cacert", certificate.certificatePath, address + "/healthz"])
            #expect(health.status == 200)
            #expect(stop(process, signal: SIGINT) == 0)
            #expect(log().contains(#""signal":"SIGINT""#))
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

            // A corrupt ring is reported, not regenerated over.
            try KeyRing.generate(dataDirectory: temp.path)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: temp.path + "/keys/index.json"))
            let corrupt = try KASToolHarness.run(["serve", "--listen", "127.0.0.1:0", "--data-dir", temp.path])
            #expect(corrupt.status == 1)
            #expect(corrupt.stderr.contains("index.json"))
        }
    }
}
