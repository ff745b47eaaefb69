// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Testing

/// The §10.7 manifest mutations, shared with the route tests.
enum ManifestMutation: String, CaseIterable, Sendable {
    case swappedKeyAccess, sharedKey, tamperedPolicy, tamperedClassification, foreignKAS, differingKASURLs,
         thirtyTwoByteKey, duplicateManifestKey, duplicatePolicyKey, hexPolicyBinding, missingComponents,
         extraComponent, wrongComponentOrder, keyAccessCount, keyAccessExtraMember, ecWrappedType, malformedIV,
         emptyDataAttributes, upperCaseUUID, malformedMediaRules, garbledWrappedKey, foreignKASKey

    var refusal: ManifestRefusal {
        switch self {
        case .swappedKeyAccess: .keyBinding
        case .sharedKey: .sharedKey
        case .tamperedPolicy, .tamperedClassification, .hexPolicyBinding: .policyBinding
        case .foreignKAS: .foreignKAS
        case .differingKASURLs: .kasURLsDiffer
        case .thirtyTwoByteKey: .keyLength
        case .duplicateManifestKey, .duplicatePolicyKey: .duplicateKey
        case .missingComponents: .componentsMissing
        case .extraComponent, .wrongComponentOrder: .componentsMalformed
        case .keyAccessCount: .keyAccessCount
        case .keyAccessExtraMember: .malformedManifest   // the closed schema (FPSv2Manifest)
        case .ecWrappedType: .keyAccessMalformed
        case .malformedIV: .ivMalformed
        case .emptyDataAttributes: .dataAttributesMissing
        case .upperCaseUUID: .policyUUIDMalformed
        case .malformedMediaRules: .malformedMediaRules
        case .garbledWrappedKey, .foreignKASKey: .unwrapFailed
        }
    }

    /// The mutated manifest bytes and the asset id a client would pair with it.
    func apply() throws -> (manifest: Data, asset: String) {
        var package = try TestPackage.audioVideo()
        let keyAccessPath: [JSONPathComponent] = [.key("encryptionInformation"), .key("keyAccess")]
        func retagged(_ value: JSONValue, policy: TDFPolicy) throws -> Data {
            // Re-encode a different policy but keep the original bindings.
            JSONWriter.write(value.replacing([.key("encryptionInformation"), .key("policy")], with: .string(policy.base64)),
                             options: [])
        }
        switch self {
        case .swappedKeyAccess:
            let value = try package.manifestValue()
            guard case .array(let items)? = value.value(at: keyAccessPath) else { throw ManifestRefusal.malformedManifest }
            return (JSONWriter.write(value.replacing(keyAccessPath, with: .array(items.reversed())), options: []), package.uuid)
        case .sharedKey:
            package.components[1].key = package.components[0].key
        case .tamperedPolicy:
            var policy = package.policy
            policy.body.dataAttributes = [TDFPolicy.DataAttribute(attribute: "https://example.com/attr/tier/value/free")]
            return (try retagged(try package.manifestValue(), policy: policy), package.uuid)
        case .tamperedClassification:
            var policy = package.policy
            policy.classification = .object(JSONObject([
                ("filter", .string("passed")), ("flagged", .array([])), ("v", .number(JSONNumber(1))),
            ]))
            package.classification = .object(JSONObject([
                ("filter", .string("passed")), ("flagged", .array([.string("nudity")])), ("v", .number(JSONNumber(1))),
            ]))
            return (try retagged(try package.manifestValue(), policy: policy), package.uuid)
        case .foreignKAS:
            package.kasURL = "https://evil.example.com"
        case .differingKASURLs:
            let value = try package.manifestValue()
            return (JSONWriter.write(value.replacing(keyAccessPath + [.index(1), .key("url")],
                                                    with: .string(MediaFixture.kasURL + "/")), options: []), package.uuid)
        case .thirtyTwoByteKey:
            package.components[0].key = try MediaFixture.randomKey(32)
        case .duplicateManifestKey:
            var text = String(decoding: try package.manifest(), as: UTF8.self)
            text.insert(contentsOf: #""schemaVersion":"4.3.0","#, at: text.index(after: text.startIndex))
            return (Data(text.utf8), package.uuid)
        case .duplicatePolicyKey:
            var text = String(decoding: package.policy.jsonData(), as: UTF8.self)
            text.insert(contentsOf: #""uuid":"\#(package.uuid)","#, at: text.index(after: text.startIndex))
            package.policyJSONOverride = Data(text.utf8)
        case .hexPolicyBinding:
            package.bindingForm = .hex
        case .missingComponents:
            let policy = package.policy
            var stripped = policy
            stripped.components = nil
            package.policyJSONOverride = stripped.jsonData()
        case .extraComponent:
            package.components.append(.init(id: "image", kind: "image", key: try MediaFixture.randomKey()))
        case .wrongComponentOrder:
            package.components.reverse()
        case .keyAccessCount:
            let value = try package.manifestValue()
            guard case .array(let items)? = value.value(at: keyAccessPath) else { throw ManifestRefusal.malformedManifest }
            return (JSONWriter.write(value.replacing(keyAccessPath, with: .array(Array(items.prefix(1)))), options: []), package.uuid)
        case .keyAccessExtraMember:
            let value = try package.manifestValue()
            guard case .object(var object)? = value.value(at: keyAccessPath + [.index(0)]) else { throw ManifestRefusal.malformedManifest }
            object = JSONObject(object.members.map { ($0.key, $0.value) } + [("ephemeralPublicKey", .string("x"))])
            return (JSONWriter.write(value.replacing(keyAccessPath + [.index(0)], with: .object(object)), options: []), package.uuid)
        case .ecWrappedType:
            let value = try package.manifestValue()
            return (JSONWriter.write(value.replacing(keyAccessPath + [.index(0), .key("type")], with: .string("ec-wrapped")),
                                     options: []), package.uuid)
        case .malformedIV:
            let value = try package.manifestValue()
            return (JSONWriter.write(value.replacing([.key("encryptionInformation"), .key("method"), .key("iv")],
                                                     with: .string(Base64.encode(Data(count: 12)))), options: []), package.uuid)
        case .emptyDataAttributes:
            package.dataAttributes = []
        case .upperCaseUUID:
            package.uuid = package.uuid.uppercased()
        case .malformedMediaRules:
            package.media = .object(JSONObject([("v", .number(JSONNumber(1))), ("maxStreams", .number(JSONNumber(2)))]))
        case .garbledWrappedKey:
            let value = try package.manifestValue()
            return (JSONWriter.write(value.replacing(keyAccessPath + [.index(0), .key("wrappedKey")],
                                                     with: .string(Base64.encode(Data(count: 256)))), options: []), package.uuid)
        case .foreignKASKey:
            // Wrapped to another KAS's key while naming ours.
            let other = try RSA.PrivateKey(keySize: 2048)
            let value = try package.manifestValue()
            let policyText = package.policyBase64
            let foreign = try KeyAccessObject.wrapping(SecretKey(data: package.components[0].key), to: .rsa(other.publicKey),
                                                       kasURL: MediaFixture.kasURL, policyBase64: policyText, bindingForm: .raw)
            return (JSONWriter.write(value.replacing(keyAccessPath + [.index(0)], with: foreign.jsonValue), options: []), package.uuid)
        }
        return (try package.manifest(), package.uuid)
    }
}

@Suite struct ManifestAdmissionTests {
    private func admission() throws -> ManifestAdmission {
        try #require(ManifestAdmission(acceptedKASURLs: [MediaFixture.kasURL],
                                       unwrapper: PrivateKeyUnwrapper([.rsa(try MediaFixture.kasKey())])))
    }

    @Test func admitsAWellFormedPackageWithEveryKey() throws {
        let package = try TestPackage.audioVideo()
        let manifest = try package.manifest()
        let admitted = try admission().admit(Array(manifest))
        #expect(admitted.policyUUID == package.uuid)
        #expect(admitted.components.map(\.id) == ["video", "audio"])
        #expect(admitted.components.map(\.kind) == [.video, .audio])
        for (component, expected) in zip(admitted.components, package.components) {
            #expect(component.key == SecretKey(data: expected.key))
        }
        #expect(admitted.iv == package.iv)
        #expect(admitted.dataAttributes == [MediaFixture.attribute])
        #expect(admitted.digest == Hex.encode(SHA256Digest.hash(data: manifest)))
        #expect(try admission().admit(Array(try TestPackage.videoOnly().manifest())).components.count == 1)
    }

    @Test func acceptedKASURLsAreNormalised() throws {
        var package = try TestPackage.videoOnly()
        package.kasURL = "HTTPS://KAS.example.com:443/"
        _ = try admission().admit(Array(try package.manifest()))
        #expect(ManifestAdmission(acceptedKASURLs: ["https://kas.example.com/path"], unwrapper: PrivateKeyUnwrapper([])) == nil)
        // The §5.2 normalisation is the readers' (FPSv2 `KeyServiceURL`): plain http only to a
        // loopback host, so the KAS never accepts a URL no player would admit.
        #expect(ManifestAdmission(acceptedKASURLs: ["http://kas.example.com"], unwrapper: PrivateKeyUnwrapper([])) == nil)
        let loopback = try #require(ManifestAdmission(acceptedKASURLs: ["http://127.0.0.1:8443/", "http://localhost"],
                                                      unwrapper: PrivateKeyUnwrapper([])))
        #expect(loopback.acceptedKAS == ["http://127.0.0.1:8443", "http://localhost"])
        for url in ["https://user@kas.example.com", "https://kas.example.com?x=1", "https://kas.example.com#f",
                    "ftp://kas.example.com", "https://kas.example.com:0", "https://kas.example.com//"] {
            #expect(ManifestAdmission(acceptedKASURLs: [url], unwrapper: PrivateKeyUnwrapper([])) == nil, "\(url)")
        }
    }

    @Test func readsBoundMediaRules() throws {
        var package = try TestPackage.videoOnly()
        package.media = .object(JSONObject([("v", .number(JSONNumber(1))), ("maxConcurrentStreams", .number(JSONNumber(2)))]))
        #expect(try admission().admit(Array(try package.manifest())).rules == MediaRules(maxConcurrentStreams: 2))
    }

    @Test(arguments: ManifestMutation.allCases)
    func refusesEachMutation(_ mutation: ManifestMutation) throws {
        let (manifest, _) = try mutation.apply()
        #expect(throws: mutation.refusal) { _ = try admission().admit(Array(manifest)) }
    }

    /// fps-v2 Appendix A.1: the shared keys, the policy after insertion and its bindings.
    @Test func appendixAVectorsAdmit() throws {
        let video = try Hex.decode("000102030405060708090a0b0c0d0e0f")
        let audio = try Hex.decode("101112131415161718191a1b1c1d1e1f")
        let after = #"{"arkavo:components":[{"id":"video","kind":"video","keyBinding":"9n5YWFmN3MC7g9kJH/tZ98P5JMMEGIz1C+zwHbchEB4="},{"id":"audio","kind":"audio","keyBinding":"rVO1aH+bdtNnKvDGX38OaorFTRMJsPMGbMJNGKKLU3Q="}],"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://patreon.arkavo.com/attr/campaign-tier/value/13167240_24457368"}],"dissem":[]},"uuid":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"}"#
        var package = TestPackage(uuid: "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b", components: [
            .init(id: "video", kind: "video", key: video), .init(id: "audio", kind: "audio", key: audio),
        ])
        package.policyJSONOverride = Data(after.utf8)
        let value = try package.manifestValue()
        let hashes = [0, 1].map { index in
            value.value(at: [.key("encryptionInformation"), .key("keyAccess"), .index(index), .key("policyBinding"), .key("hash")])?.string
        }
        #expect(hashes == ["YfWHFTZaDRIdmvAJhng0YHwLLHeKeEYNGKXCXd9wWqc=", "BYwGfQat7pK/d/NCvjZZqIryPOUA72NPx+1O/oBXF5A="])
        let admitted = try admission().admit(Array(JSONWriter.write(value, options: [])))
        #expect(admitted.policyUUID == "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b")
        #expect(admitted.components.first?.key == SecretKey(data: video))
    }
}
