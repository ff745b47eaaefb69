import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// A full run (keys delivered on both paths, refusals, denials, a rate limit), then a scan of the
/// audit log, the request log and the refusals' answers (bodies with their reason codes, and
/// headers) for every secret the run handled.
@Suite struct MediaLogScanTests {
    @Test func noSecretReachesTheLogs() throws {
        let package = try TestPackage.audioVideo()
        let ckc = try SecureRandom.data(count: 48)
        let spc = try SecureRandom.data(count: 40)
        let transport = RecordingSDKTransport(ckc: ckc, spcAssetID: "\(package.uuid)/video")
        let harness = try MediaHarness(configure: { $0.keyRequestsPerMinute = 6 }, fairPlay: transport.module)
        let manifest = try package.manifest()
        let subject = "alice-\(UUID().uuidString)@example.com"
        let token = try harness.viewer(subject)
        var secrets: [String] = [token, subject, Base64.encode(manifest), Base64.encode(spc), Base64.encode(ckc)]
        for component in package.components {
            secrets += [Hex.encode(component.key), Base64.encode(component.key)]
        }
        let manifestValue = try JSONParser.parse(manifest)
        for index in 0..<2 {
            if let wrapped = manifestValue.value(at: [.key("encryptionInformation"), .key("keyAccess"), .index(index), .key("wrappedKey")])?.string {
                secrets.append(wrapped)
            }
        }

        // Open path, both components.
        for component in ["video", "audio"] {
            let session = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
            secrets.append(session)
            let (result, _) = try harness.openKeyRequest(token: token, asset: package.uuid, component: component,
                                                         sessionId: session, manifest: manifest)
            #expect(result.status == 200)
            if let wrapped = try JSONParser.parse(result.body).object?["wrappedKey"]?.string { secrets.append(wrapped) }
            #expect(try harness.post("/media/v1/session/\(session)/heartbeat", token: token, body: [:]).status == 200)
            #expect(try harness.delete("/media/v1/session/\(session)", token: token).status == 200)
        }
        // FairPlay.
        let fairplay = try #require(try harness.startSession(token: token, asset: package.uuid, protocol: "fairplay").sessionId)
        secrets.append(fairplay)
        let fp = try harness.post("/media/v1/key-request", token: token, body: .object(JSONObject([
            ("assetId", .string(package.uuid)), ("component", "video"), ("sessionId", .string(fairplay)),
            ("spcData", .string(Base64.encode(spc))), ("tdfManifest", .string(Base64.encode(manifest))),
        ])))
        #expect(fp.status == 200)
        // A policy refusal: the answer names the rule, and nothing of the request.
        let outsiderSubject = "mallory-\(UUID().uuidString)@example.com"
        let outsider = try harness.viewer(outsiderSubject, entitlements: [])
        secrets += [outsider, outsiderSubject]
        let outsiderSession = try #require(try harness.startSession(token: outsider, asset: package.uuid).sessionId)
        secrets.append(outsiderSession)
        let (denied, _) = try harness.openKeyRequest(token: outsider, asset: package.uuid, component: "video",
                                                     sessionId: outsiderSession, manifest: manifest)
        #expect(denied.status == 403 && denied.text == #"{"error":"platform refused","reason":"not_entitled"}"#)
        var answers = [denied.text + "\n" + denied.headers]
        // A refusal, then the rate limit.
        let (mutated, _) = try ManifestMutation.swappedKeyAccess.apply()
        let refused = try #require(try harness.startSession(token: token, asset: package.uuid).sessionId)
        secrets.append(refused)
        for _ in 0..<4 {
            let (answer, _) = try harness.openKeyRequest(token: token, asset: package.uuid, component: "video",
                                                         sessionId: refused, manifest: mutated)
            answers.append(answer.text + "\n" + answer.headers)
        }
        #expect(harness.auditEvents.contains { $0["reason"]?.string == "rate_limited" })
        #expect(harness.auditEvents.contains { $0["reason"]?.string == "key_binding_mismatch" })

        let logs = harness.auditLines + harness.requestLog.lines
        #expect(logs.count > 10)
        for line in logs + answers {
            for secret in secrets where line.contains(secret) {
                Issue.record("a log line carries a secret of \(secret.utf8.count) characters")
            }
        }
        // Every request line names its route pattern, never the path with a session id.
        #expect(harness.requestLog.lines.contains { $0.contains("/media/v1/session/{id}/heartbeat") })
        let viewers: Set = [Identity.viewer(subject).viewerHash, Identity.viewer(outsiderSubject).viewerHash]
        #expect(harness.auditEvents.allSatisfy { viewers.contains($0["viewer"]?.string ?? "") })
    }
}
