import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline
import Testing

extension IdentityTests {
    /// Issue 28, "Viewers are keyed by `sub` alone": with two trusted issuers, the second
    /// issuer's `alice` is another viewer than the first's. The whole KAS in process
    /// (`KASTestHarness`), its tokens verified by the real verifier: the dev issuer and an HS256
    /// issuer of the configuration, both minting `sub` "alice".
    @Suite struct IssuerScopedViewerTests {
        static let kasURL = "http://localhost:9"

        /// A KAS trusting the dev issuer and `otherIssuer`; `stop()` ends it.
        final class TwoIssuers {
            static let otherIssuer = "https://idp-b.example"
            static let otherAudience = "urn:mediadrm:kas:other"
            let temp: TemporaryDirectory
            let harness: KASTestHarness
            private let secret: SecretKey

            init(configure: @escaping (inout KASConfiguration) -> Void = { _ in }) throws {
                temp = try TemporaryDirectory("kas-issuers")
                let bytes = try SecureRandom.data(count: 32)
                secret = SecretKey(data: bytes)
                let secretFile = temp.appending("idp-b.secret")
                _ = FileManager.default.createFile(atPath: secretFile, contents: bytes, attributes: [.posixPermissions: 0o600])
                harness = try KASTestHarness { configuration in
                    configuration.issuers = [IssuerConfiguration(issuer: Self.otherIssuer, audiences: [Self.otherAudience],
                                                                 keySource: .hs256SecretFile(secretFile))]
                    configuration.acceptedKASURLs = [IssuerScopedViewerTests.kasURL]
                    configure(&configuration)
                }
            }

            func stop() { harness.stop() }

            /// A dev-issuer token (`kas token`'s).
            func devToken(_ subject: String) throws -> String {
                try harness.token(sub: subject, entitlements: [MediaFixture.attribute])
            }

            /// A token of the other issuer with the same claims.
            func otherToken(_ subject: String) throws -> String {
                let now = Date()
                return try JWT.sign(claims: JSONObject([
                    ("iss", .string(Self.otherIssuer)), ("aud", .string(Self.otherAudience)), ("sub", .string(subject)),
                    ("iat", JWT.numericDate(now)), ("exp", JWT.numericDate(now.addingTimeInterval(600))),
                    ("entitlements", .array([.string(MediaFixture.attribute)])),
                ]), key: try JWSSigningKey(hmac: secret))
            }

            func catalogue(_ rules: MediaRules?) throws -> TestPackage {
                try harness.catalogue(rules, kasURL: IssuerScopedViewerTests.kasURL, title: "Two issuers")
            }

            func startPlayback(_ package: TestPackage, token: String) throws -> CurlResult {
                try harness.post("/media/v1/playback", token: token,
                                 json: [("assetId", .string(package.uuid)), ("drmSystem", .string("tdf"))])
            }

            func request(_ method: String, _ path: String, token: String) throws -> CurlResult {
                try harness.post(path, token: token, body: Data(), method: method)
            }
        }

        static func object(_ result: CurlResult) -> JSONObject? { (try? JSONParser.parse(result.body))?.object }

        @Test func theSameSubFromTwoIssuersIsTwoViewers() {
            let dev = Identity(subject: "alice", issuer: DevIssuer.issuer)
            let other = Identity(subject: "alice", issuer: TwoIssuers.otherIssuer)
            #expect(dev.storeKey != other.storeKey && dev.viewerHash != other.viewerHash)
            #expect(dev.storeKey == Identity.storeKey(issuer: DevIssuer.issuer, subjectKey: Identity.subjectKey(subject: "alice")))
            #expect(dev.viewerHash == String(dev.storeKey.prefix(16)))
            // The issuer and the subject key never run together: moving bytes across the
            // separator gives another key.
            #expect(Identity.storeKey(issuer: "a", subjectKey: "b" + String(repeating: "0", count: 63))
                    != Identity.storeKey(issuer: "a\u{0}b", subjectKey: String(repeating: "0", count: 63)))
        }

        @Test func theOtherIssuersAliceCannotRenewOrReleaseThePlayback() throws {
            let kas = try TwoIssuers()
            defer { kas.stop() }
            let package = try kas.catalogue(MediaRules(maxConcurrentStreams: 1))
            let alice = try kas.devToken("alice"), impostor = try kas.otherToken("alice")

            let started = try kas.startPlayback(package, token: alice)
            #expect(started.status == 200, "\(started.text)")
            let playback = try #require(Self.object(started)?["playbackId"]?.string)
            let session = try #require(Self.object(started)?["sessionId"]?.string)

            #expect(try kas.request("POST", "/media/v1/playback/\(playback)/media-url", token: impostor).status == 404)
            #expect(try kas.request("DELETE", "/media/v1/playback/\(playback)", token: impostor).status == 404)
            #expect(try kas.request("POST", "/media/v1/session/\(session)/heartbeat", token: impostor).status == 404)
            #expect(try kas.request("DELETE", "/media/v1/session/\(session)", token: impostor).status == 404)
            // Hers still works, and she still holds her one stream.
            #expect(try kas.request("POST", "/media/v1/session/\(session)/heartbeat", token: alice).status == 200)
            #expect(try kas.request("POST", "/media/v1/playback/\(playback)/media-url", token: alice).status == 200)
            #expect(try kas.startPlayback(package, token: alice).status == 429)
            #expect(try kas.request("DELETE", "/media/v1/playback/\(playback)", token: alice).status == 204)

            // The audit log tells the two apart, and names neither.
            let audit = try String(contentsOfFile: KASDataDirectory(kas.harness.dataDirectory).auditLog, encoding: .utf8)
            let viewers = Set(audit.split(separator: "\n").compactMap { (try? JSONParser.parse(Data($0.utf8)))?.object?["viewer"]?.string })
            let hers = Identity(subject: "alice", issuer: DevIssuer.issuer).viewerHash
            let theirs = Identity(subject: "alice", issuer: TwoIssuers.otherIssuer).viewerHash
            #expect(viewers.contains(hers) && viewers.isSubset(of: [hers, theirs]), "\(viewers)")
            #expect(!audit.contains("alice") && !audit.contains(TwoIssuers.otherIssuer))
        }

        @Test func theOtherIssuersAliceCannotTakeHerStreamSlot() throws {
            let kas = try TwoIssuers()
            defer { kas.stop() }
            let package = try kas.catalogue(MediaRules(maxConcurrentStreams: 1))
            let alice = try kas.devToken("alice"), impostor = try kas.otherToken("alice")

            // The other issuer's alice plays first; hers is another viewer's stream, not one of hers.
            let theirs = try kas.startPlayback(package, token: impostor)
            #expect(theirs.status == 200, "\(theirs.text)")
            let hers = try kas.startPlayback(package, token: alice)
            #expect(hers.status == 200, "\(hers.text)")
            // Each still has one stream of this title.
            let second = try kas.startPlayback(package, token: impostor)
            #expect(second.status == 429 && Self.object(second)?["reason"]?.string == "concurrent_streams", "\(second.text)")
            #expect(try kas.startPlayback(package, token: alice).status == 429)
        }

        @Test func theOtherIssuersAliceCannotDrainHerRateBuckets() throws {
            let kas = try TwoIssuers { configuration in
                configuration.rateLimits.keyRequestsPerMinute = 2
                configuration.limits.rewrapRequestsPerMinute = 2
            }
            defer { kas.stop() }
            let alice = try kas.devToken("alice"), impostor = try kas.otherToken("alice")
            // Each bucket is taken before the body is read: an empty body costs a token and is
            // then refused 400. The offline licence requests draw on their own bucket.
            let routes = ["/media/v1/key-request", "/kas/v2/rewrap", "/media/v1/offline-license"]
            for route in routes {
                let drained = try (0..<3).map { _ in try kas.harness.post(route, token: impostor, body: Data("{}".utf8)).status }
                #expect(drained.last == 429, "\(route): \(drained)")
                let hers = try kas.harness.post(route, token: alice, body: Data("{}".utf8))
                #expect(hers.status == 400, "\(route): her bucket is her own: \(hers.status) \(hers.text)")
            }
        }

        @Test func theOtherIssuersAliceCannotReleaseOrRenewHerOfflineLicence() throws {
            let kas = try TwoIssuers()
            defer { kas.stop() }
            let package = try kas.catalogue(MediaRules(offline: true, offlineLicenseDurationSeconds: 3600,
                                                       offlinePlaybackWindowSeconds: 900, maxOfflineDevices: 1))
            let alice = try kas.devToken("alice"), impostor = try kas.otherToken("alice")
            func issue(_ token: String) throws -> CurlResult {
                let body = OfflineLicenseRequest(assetID: package.uuid, manifest: try package.manifest(),
                                                 device: try OfflineDeviceKey(try ECP256.KeyAgreement.PrivateKey().publicKey))
                return try kas.harness.post("/media/v1/offline-license", token: token, body: JSONWriter.write(body.jsonValue))
            }

            let issued = try issue(alice)
            #expect(issued.status == 200, "\(issued.text)")
            let license = try OfflineLicenseAnswer(json: try JSONParser.parse(issued.body)).licenseID
            #expect(try kas.request("DELETE", "/media/v1/offline-license/\(license)", token: impostor).status == 404)
            #expect(try kas.request("POST", "/media/v1/offline-license/\(license)/renew", token: impostor).status == 404)
            // Her one device is hers: the other alice's device is counted apart.
            #expect(try issue(impostor).status == 200)
            #expect(try issue(alice).status == 429)
            #expect(try kas.request("DELETE", "/media/v1/offline-license/\(license)", token: alice).status == 204)
        }
    }
}
