// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMJSON
import MediaDRMTDF
import Testing

/// A mutated copy of the real package (or of the request made with it) that fps-v2 §10.7 makes
/// the KAS refuse, and the reason code the audit log must record.
enum RealMutation: String, CaseIterable, Sendable {
    case swappedKeyAccess, sharedKey, wrongComponent, missingComponent, tamperedPolicy, tamperedClassification,
         foreignKAS, thirtyTwoByteKey, duplicateManifestKey, duplicatePolicyKey, wrongAssetId

    var auditReason: String {
        switch self {
        case .swappedKeyAccess: "key_binding_mismatch"
        case .sharedKey: "shared_key"
        case .wrongComponent: "component_unknown"
        case .missingComponent: "component_missing"
        case .tamperedPolicy, .tamperedClassification: "policy_binding_mismatch"
        case .foreignKAS: "kas_not_accepted"
        case .thirtyTwoByteKey: "key_not_16_bytes"
        case .duplicateManifestKey, .duplicatePolicyKey: "duplicate_json_key"
        case .wrongAssetId: "asset_mismatch"
        }
    }

    /// The manifest, the asset id and the component the request carries.
    func request(_ package: RealPackage) throws -> (manifest: Data, asset: String, component: String?) {
        switch self {
        case .swappedKeyAccess:
            return (package.mutated { $0.keyAccess.reverse() }, package.uuid, "video")
        case .sharedKey:
            // Audio gets video's key with every binding made anew for it, so only the sharing is wrong.
            let key = SecretKey(data: try #require(package.keys["video"]))
            var policy = try TDFPolicy(base64: package.model.policy)
            var components = try #require(policy.components)
            components.entries[1].keyBinding = TDFBinding.keyBinding(componentID: components.entries[1].id, key: key)
            policy.components = components
            let text = policy.base64
            let manifest = package.mutated { model in
                model.policy = text
                model.keyAccess[1] = model.keyAccess[0]
                for index in model.keyAccess.indices {
                    model.keyAccess[index].policyBinding = .object(
                        alg: "HS256", hash: TDFBinding.policyBinding(policyBase64: text, key: key, form: .raw))
                }
            }
            return (manifest, package.uuid, "audio")
        case .wrongComponent:
            return (package.manifest, package.uuid, "subtitles")
        case .missingComponent:
            return (package.manifest, package.uuid, nil)
        case .tamperedPolicy:
            let policy = try package.policyValue.replacing([.key("body"), .key("dataAttributes")], with: .array([
                .object(JSONObject([("attribute", .string("https://example.com/attr/tier/value/free"))])),
            ]))
            return (Self.withPolicy(package, policy), package.uuid, "video")
        case .tamperedClassification:
            let policy = try package.policyValue.replacing([.key(TDFPolicy.classificationKey), .key("flagged")],
                                                           with: .array([.string("violence")]))
            return (Self.withPolicy(package, policy), package.uuid, "video")
        case .foreignKAS:
            let manifest = package.mutated { model in
                for index in model.keyAccess.indices { model.keyAccess[index].url = "https://kas.evil.example" }
            }
            return (manifest, package.uuid, "video")
        case .thirtyTwoByteKey:
            let publicKey = try RSA.PublicKey(pemRepresentation: package.harness.rsaPublicKeyPEM)
            let wrapped = try publicKey.encrypt(try SecureRandom.data(count: 32), padding: .oaepSHA1)
            return (package.mutated { $0.keyAccess[0].wrappedKey = Base64.encode(wrapped) }, package.uuid, "video")
        case .duplicateManifestKey:
            let text = String(decoding: package.manifest, as: UTF8.self)
            let range = try #require(text.range(of: #""policy":"#))
            let duplicated = text.replacingCharacters(in: range, with: #""policy":"e30=","policy":"#)
            return (Data(duplicated.utf8), package.uuid, "video")
        case .duplicatePolicyKey:
            var text = String(decoding: try Base64.decode(package.model.policy), as: UTF8.self)
            text.insert(contentsOf: #""uuid":"\#(package.uuid)","#, at: text.index(after: text.startIndex))
            let encoded = Base64.encode(Data(text.utf8))
            return (package.mutated { $0.policy = encoded }, package.uuid, "video")
        case .wrongAssetId:
            return (package.manifest, UUID().uuidString.lowercased(), "video")
        }
    }

    /// The manifest with another policy text and the original bindings.
    private static func withPolicy(_ package: RealPackage, _ policy: JSONValue) -> Data {
        let text = Base64.encode(JSONWriter.write(policy, options: [.sortedKeys]))
        return package.mutated { $0.policy = text }
    }
}

extension AppTests {
    /// Key requests over HTTP (curl) against the assembled KAS with a package made by the
    /// project's packager for it.
    @Suite struct RealPackageKeyRequestTests {
        @Test func deliversEachComponentKeyOverTheOpenPath() throws {
            let package = try RealPackage.shared()
            let harness = package.harness
            #expect(package.segmentCount >= 2)
            let sub = "real-viewer-\(UUID().uuidString)"
            let token = try harness.token(sub: sub, entitlements: [RealPackage.attribute])
            let playback = "pb-" + UUID().uuidString
            for component in ["video", "audio"] {
                let session = try #require(try harness.startSession(token: token, asset: package.uuid,
                                                                    extra: [("playbackId", .string(playback))]))
                let (result, clientKey) = try harness.openKeyRequest(token: token, asset: package.uuid, component: component,
                                                                     sessionId: session, manifest: package.manifest)
                #expect(result.status == 200, "\(component): \(result.text)")
                let answer = try #require(try JSONParser.parse(result.body).object)
                #expect(answer.keys.sorted() == ["metadata", "sessionPublicKey", "status", "wrappedKey"])
                #expect(answer["status"]?.string == "success")
                #expect(answer["metadata"]?.object?["lease_seconds"]?.int64 == 3600)

                // docs/formats.md "Cryptographic conventions" by hand: ECDH with the KAS ephemeral key, HKDF-SHA256 (salt
                // SHA-256("TDF"), empty info) to an AES-256 key, GCM over nonce ‖ ct ‖ tag.
                let ephemeral = try ECP256.KeyAgreement.PublicKey(pemRepresentation: try #require(answer["sessionPublicKey"]?.string))
                let secret = try clientKey.sharedSecretFromKeyAgreement(with: ephemeral)
                let wrapKey = try secret.hkdfDerivedSymmetricKey(salt: SHA256Digest.hash(data: Data("TDF".utf8)), sharedInfo: Data(),
                                                                 outputByteCount: 32)
                let box = try AESCipher.GCM.SealedBox(combined: Base64.decode(try #require(answer["wrappedKey"]?.string)))
                let key = try AESCipher.GCM.open(box, using: wrapKey)
                #expect(key == package.keys[component], "\(component): the delivered key is the packaged one")
            }
            let events = harness.auditEvents(sub: sub).filter { $0["event"]?.string == "key_request" }
            #expect(events.map { $0["reason"]?.string } == ["key_delivered", "key_delivered"])
            #expect(events.map { $0["component"]?.string } == ["video", "audio"])
            // The second key came from the content-key cache (one RSA unwrap per manifest).
            let metrics = try harness.get("/metrics").text
            #expect(metrics.contains(#"kas_media_key_cache_total{result="hit"}"#))
        }

        @Test func theFairPlayPathAnswers503WithoutAModule() throws {
            let package = try RealPackage.shared()
            let harness = package.harness
            let token = try harness.token(sub: "fp-\(UUID().uuidString)", entitlements: [RealPackage.attribute])
            let session = try #require(try harness.startSession(token: token, asset: package.uuid, protocol: "fairplay"))
            let result = try harness.post("/media/v1/key-request", token: token, json: [
                ("assetId", .string(package.uuid)), ("component", "video"), ("sessionId", .string(session)),
                ("tdfManifest", .string(Base64.encode(package.manifest))), ("spcData", .string(Base64.encode(Data(repeating: 7, count: 64)))),
            ])
            #expect(result.status == 503)
            #expect(result.text == #"{"error":"fairplay unavailable"}"#)
        }

        @Test(arguments: RealMutation.allCases)
        func refusesEveryMutation(_ mutation: RealMutation) throws {
            let package = try RealPackage.shared()
            let harness = package.harness
            let sub = "mutation-\(mutation.rawValue)-\(UUID().uuidString)"
            let token = try harness.token(sub: sub, entitlements: [RealPackage.attribute])
            let (manifest, asset, component) = try mutation.request(package)
            let session = try #require(try harness.startSession(token: token, asset: asset))
            let (result, _) = try harness.openKeyRequest(token: token, asset: asset, component: component,
                                                         sessionId: session, manifest: manifest)
            #expect(result.status == 403, "\(mutation): \(result.text)")
            #expect(result.text == #"{"error":"manifest refused"}"#, "\(mutation)")
            #expect(!result.text.contains("wrappedKey"))
            let reasons = harness.auditEvents(sub: sub).filter { $0["event"]?.string == "key_request" }.map { $0["reason"]?.string }
            #expect(reasons == [mutation.auditReason], "\(mutation)")
        }
    }
}
