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
import MediaDRMTDF
import Testing

/// The media routes behind the real bearer-token verifier (dev issuer JWTs) and the real key ring,
/// across a key rotation.
@Suite struct MediaKeyRingIntegrationTests {
    @Test func realTokensAndTheKeyRingAcrossARotation() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("data").path
        try KeyRing.generate(dataDirectory: dataDirectory)
        let before = try KeyRing.load(dataDirectory: dataDirectory)
        let oldKey = try #require(before.active(.rsa2048))

        // Packaged before the rotation, naming the old kid.
        var package = try TestPackage.videoOnly()
        let policyText = package.policyBase64
        let oldObject = try KeyAccessObject.wrapping(
            SecretKey(data: package.components[0].key), to: .rsa(try #require(oldKey.rsaPrivateKey).publicKey),
            kasURL: MediaFixture.kasURL, kid: oldKey.kid, policyBase64: policyText, bindingForm: .raw)
        let oldManifest = JSONWriter.write(try package.manifestValue().replacing(
            [.key("encryptionInformation"), .key("keyAccess")], with: .array([oldObject.jsonValue])), options: [])

        try KeyRing.rotate(.rsa2048, dataDirectory: dataDirectory)
        let holder = KeyRingHolder(try KeyRing.load(dataDirectory: dataDirectory))
        let newKey = try #require(holder.current.active(.rsa2048))
        #expect(newKey.kid != oldKey.kid)
        // Packaged after, without a kid: the active key.
        package.uuid = UUID().uuidString.lowercased()
        let newObject = try KeyAccessObject.wrapping(
            SecretKey(data: package.components[0].key), to: .rsa(try #require(newKey.rsaPrivateKey).publicKey),
            kasURL: MediaFixture.kasURL, policyBase64: package.policyBase64, bindingForm: .raw)
        let newManifest = JSONWriter.write(try package.manifestValue().replacing(
            [.key("encryptionInformation"), .key("keyAccess")], with: .array([newObject.jsonValue])), options: [])
        let oldUUID = try #require(try TDFPolicy(base64: policyText).uuid as String?)

        var kas = KASConfiguration()
        kas.acceptedKASURLs = [MediaFixture.kasURL]
        let verifier = try BearerTokenVerifier(configuration: kas, keyRing: holder.current)
        let store = try SQLiteMediaStore(path: directory.appendingPathComponent("media.sqlite").path)
        let audit = try MediaAuditLog(path: directory.appendingPathComponent("audit.log").path)
        let configuration = try #require(MediaServiceConfiguration(kas: kas))
        let service = try MediaService(configuration: configuration, store: store, unwrapper: KeyRingMediaUnwrapper(holder),
                                       audit: audit)
        let sink = MemoryLogSink()
        let router = Router<KASRequestContext>()
        router.add(middleware: RequestLogMiddleware(sink: sink))
        router.add(middleware: ErrorMiddleware(sink: sink))
        registerMediaRoutes(on: router, service: service, authentication: AuthenticationMiddleware(verifier: verifier, sink: sink))
        let server = try TestServer(router: router) { $0.maxBodyBytes = 4 << 20 }
        defer { server.stop(gracePeriod: .seconds(1)) }

        let devIssuer = try #require(holder.current.devIssuer)
        let token = try devIssuer.token(subject: "viewer-\(UUID().uuidString)", lifetime: 600, extraClaims: JSONObject([
            ("entitlements", .array([.string(MediaFixture.attribute)])),
        ]))

        // No credential: 401 on the bearer routes; the certificate route takes none (404 here).
        #expect(try Curl.run(["-X", "POST", "--data-binary", "{}", server.url("/media/v1/session/start")]).status == 401)
        #expect(try Curl.run([server.url("/media/v1/certificate")]).status == 404)

        var secrets = [token, Hex.encode(package.components[0].key), Base64.encode(package.components[0].key),
                       oldObject.wrappedKey, newObject.wrappedKey]
        for (asset, manifest) in [(oldUUID, oldManifest), (package.uuid, newManifest)] {
            let start = try Curl.run(["-X", "POST", "-H", "Authorization: Bearer \(token)", "--data-binary", "@-",
                                      server.url("/media/v1/session/start")],
                                     stdin: JSONWriter.write(.object(JSONObject([("assetId", .string(asset)), ("protocol", "tdf")]))))
            #expect(start.status == 200)
            let session = try #require(try JSONParser.parse(start.body).object?["sessionId"]?.string)
            secrets.append(session)
            let clientKey = try ECP256.KeyAgreement.PrivateKey()
            let body = JSONWriter.write(.object(JSONObject([
                ("assetId", .string(asset)), ("component", "video"), ("sessionId", .string(session)),
                ("tdfManifest", .string(Base64.encode(manifest))), ("clientPublicKey", .string(clientKey.publicKey.pemRepresentation)),
            ])))
            let result = try Curl.run(["-X", "POST", "-H", "Authorization: Bearer \(token)", "--data-binary", "@-",
                                       server.url("/media/v1/key-request")], stdin: body)
            #expect(result.status == 200)
            #expect(try MediaHarness.unwrap(result, with: clientKey) == package.components[0].key)
        }
        let lines = sink.lines + ((try? String(contentsOfFile: audit.path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty)
        for line in lines {
            for secret in secrets where line.contains(secret) { Issue.record("a log line carries a secret") }
        }
    }
}
