import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

extension AppTests {
    /// The assembled KAS (`KASTestHarness`, the assembly `kas serve` runs) over real HTTP.
    @Suite struct KASApplicationTests {
        @Test(arguments: [false, true])
        func servesEveryRouteFamilyFromOneAssembly(tls: Bool) throws {
            let harness = try KASTestHarness(tls: tls)
            defer { harness.stop() }
            #expect(harness.baseURL == (tls ? "https" : "http") + "://127.0.0.1:\(harness.port)")
            #expect(harness.publicURL == harness.baseURL)
            #expect(harness.application.configuration.acceptedKASURLs == [harness.baseURL])
            let ca = harness.certificate.map { ["--cacert", $0.certificatePath] } ?? []

            #expect(try Curl.run(ca + [harness.url("/healthz")]).status == 200)
            // OpenTDF public key: the ring's active RSA key.
            let publicKey = try Curl.run(ca + [harness.url("/kas/v2/kas_public_key")])
            #expect(publicKey.status == 200)
            #expect(publicKey.text.contains(#""kid":"r1""#))
            // The well-known document names the bound public URL, not port 0.
            let wellKnown = try Curl.run(ca + [harness.url("/.well-known/opentdf-configuration")])
            #expect(wellKnown.text.contains(harness.publicURL.replacingOccurrences(of: "/", with: "\\/"))
                    || wellKnown.text.contains(harness.publicURL))
            // Media: certificate public (404, none configured), the rest behind the bearer token.
            #expect(try Curl.run(ca + [harness.url("/media/v1/certificate")]).status == 404)
            let asset = UUID().uuidString.lowercased()
            let body = JSONWriter.write(.object(JSONObject([("assetId", .string(asset)), ("protocol", "tdf")])))
            let refused = try harness.post("/media/v1/session/start", token: nil, body: body)
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == "Bearer")
            let token = try harness.token(sub: "alice")
            let started = try harness.post("/media/v1/session/start", token: token, body: body)
            #expect(started.status == 200)
            let answer = try #require(try JSONParser.parse(started.body).object)
            #expect(answer["status"]?.string == "started")
            #expect(answer["heartbeatSeconds"]?.int64 == 60)
            let session = try #require(answer["sessionId"]?.string)
            let beat = try harness.post("/media/v1/session/\(session)/heartbeat", token: token, body: Data())
            #expect(beat.status == 200)

            // The media gauges are on /metrics, next to the HTTP series and the auth counter.
            let metrics = try Curl.run(ca + [harness.url("/metrics")]).text
            #expect(metrics.contains("kas_media_active_sessions 1\n"))
            #expect(metrics.contains("kas_media_key_cache_entries 0\n"))
            #expect(metrics.contains("kas_media_sessions_started_total 1\n"))
            #expect(metrics.contains(#"kas_auth_failures_total{cause="missingToken"} 1"#))

            // The state lives in the data directory, mode 0600.
            let layout = KASDataDirectory(harness.dataDirectory)
            #expect(fileMode(layout.mediaStore) == 0o600)
            #expect(fileMode(layout.auditLog) == 0o600)
            let audit = try String(contentsOfFile: layout.auditLog, encoding: .utf8)
            #expect(audit.contains(#""event":"session_start""#))
            #expect(!audit.contains(session) && !audit.contains(token))
        }

        @Test func theBodyLimitFitsAKeyRequestWithAOneMiBManifest() throws {
            let harness = try KASTestHarness()
            defer { harness.stop() }
            #expect(KASConfiguration().limits.maxBodyBytes == 2 << 20)
            let token = try harness.token(sub: "bob")
            // A key request carrying 1 MiB of manifest (base64 in JSON): read, not 413. It is
            // not a manifest the KAS accepts, so the answer is a 4xx from the media service.
            let manifest = Data(repeating: 0x20, count: 1 << 20)
            let body = JSONWriter.write(.object(JSONObject([
                ("assetId", .string(UUID().uuidString.lowercased())), ("component", "video"),
                ("sessionId", .string(String(repeating: "A", count: 43))),
                ("tdfManifest", .string(Base64.encode(manifest))),
                ("clientPublicKey", .string(try ECP256.KeyAgreement.PrivateKey().publicKey.pemRepresentation)),
            ])))
            #expect(body.count > 1 << 20)
            let result = try harness.post("/media/v1/key-request", token: token, body: body)
            #expect(result.status == 403)
            #expect(result.text == #"{"error":"manifest refused"}"#)
            // Past the configured limit: 413 before the body is read.
            let limited = try KASTestHarness { $0.limits.maxBodyBytes = 64 * 1024 }
            defer { limited.stop() }
            let tooLarge = try limited.post("/media/v1/key-request", token: token, body: body)
            #expect(tooLarge.status == 413)
        }

        @Test func shutdownClosesTheStoreAndARestartKeepsItsRows() throws {
            let directory = try TemporaryDirectory()
            let dataDirectory = directory.appending("data")
            var session = ""
            var token = ""
            do {
                let harness = try KASTestHarness(dataDirectory: dataDirectory)
                token = try harness.token(sub: "carol", ttl: 3600)
                let body = JSONWriter.write(.object(JSONObject([
                    ("assetId", .string(UUID().uuidString.lowercased())), ("protocol", "tdf"),
                ])))
                let started = try harness.post("/media/v1/session/start", token: token, body: body)
                session = try #require(try JSONParser.parse(started.body).object?["sessionId"]?.string)
                harness.stop()
                // Closed: the WAL was checkpointed into the database and truncated.
                let wal = KASDataDirectory(dataDirectory).mediaStore + "-wal"
                #expect(try writeAheadLogBytes(wal) == 0)
                #expect(throws: StoreError(.closed, "")) { try harness.application.store.liveSessionCount(now: Date()) }
            }
            let again = try KASTestHarness(dataDirectory: dataDirectory)
            defer { again.stop() }
            let beat = try again.post("/media/v1/session/\(session)/heartbeat", token: token, body: Data())
            #expect(beat.status == 200)
            #expect(FileManager.default.fileExists(atPath: dataDirectory))
        }
    }
}
