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
    /// The assembled KAS (`KASTestHarness`, as `kas serve` builds it) with a `fairplay`
    /// configuration: the certificate route and the SDK module come from the configuration.
    /// The SDK side is `SDKCommandTestDouble` (not FairPlay).
    @Suite struct FairPlayServeTests {
        @Test func servesTheCertificateAndDeliversACKCThroughTheConfiguredCommand() throws {
            let directory = try TemporaryDirectory("fairplay-serve")
            let certificate = try SDKCommandTestDouble.certificate(in: directory.path)
            let ckc = Data((0..<96).map { UInt8(255 - $0) })
            var package = try TestPackage.audioVideo()
            let double = try SDKCommandTestDouble(ckc: ckc, spcAssetID: "\(package.uuid)/audio")
            let harness = try KASTestHarness(configure: { configuration in
                configuration.fairPlay = KASConfiguration.FairPlaySettings(
                    certificateFile: certificate.path,
                    transport: .command(executable: double.executable, arguments: double.arguments()), timeoutSeconds: 5)
            })
            defer { harness.stop() }

            let served = try harness.get("/media/v1/certificate")
            #expect(served.status == 200)
            #expect(served.body == certificate.bytes)

            package.kasURL = harness.publicURL
            package.kasPublicKey = try RSA.PublicKey(pemRepresentation: harness.rsaPublicKeyPEM)
            let token = try harness.token(sub: "fp-\(UUID().uuidString)", entitlements: [MediaFixture.attribute])
            let session = try #require(try harness.startSession(token: token, asset: package.uuid, protocol: "fairplay"))
            let result = try harness.post("/media/v1/key-request", token: token, json: [
                ("assetId", .string(package.uuid)), ("component", "audio"), ("sessionId", .string(session)),
                ("spcData", .string(Base64.encode(Data([5, 6, 7])))), ("tdfManifest", .string(Base64.encode(try package.manifest()))),
            ])
            #expect(result.status == 200, "\(result.text)")
            #expect((try JSONParser.parse(result.body)).object?["wrappedKey"]?.string == Base64.encode(ckc))
            let sent = try JSONParser.parse(try #require(double.requests.last))
            let info = sent.value(at: [.key("fairplay-streaming-request"), .key("create-ckc"), .index(0), .key("asset-info"), .index(0)])
            #expect(info?.object?["content-key"]?.string == Hex.encode(try #require(package.components.last?.key)))
            #expect(info?.object?["content-type"]?.string == "audio")
        }

        @Test func withoutTheSectionTheCertificateIs404AndFairPlay503() throws {
            let harness = try KASTestHarness()
            defer { harness.stop() }
            let result = try harness.get("/media/v1/certificate")
            #expect(result.status == 404)
            #expect(result.text == #"{"error":"no certificate"}"#)
        }

        @Test func aMissingCertificateStopsStartUpNamingTheFile() throws {
            let directory = try TemporaryDirectory("fairplay-serve")
            let missing = directory.appending("nope.der")
            let error = #expect(throws: KASApplicationError.self) {
                _ = try KASTestHarness(configure: { configuration in
                    configuration.fairPlay = KASConfiguration.FairPlaySettings(
                        certificateFile: missing, transport: .command(executable: "/bin/cat", arguments: []))
                })
            }
            #expect(error?.reason.contains("'\(missing)'") == true)
        }
    }
}
