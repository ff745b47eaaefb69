import Dispatch
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
import MediaDRMMedia
import MediaDRMOffline
import Synchronization
import Testing

/// The assembled KAS with `store.url` set (docs/kas.md#scale-out): two `KASInstance`s on one
/// real `redis-server`, one key ring directory, as two nodes behind a load balancer. What
/// one node starts, the other continues; nothing in Redis names a viewer or a playback.
@Suite(.serialized) struct RedisClusterAppTests {
    /// The key service URL the test packages name, accepted by both nodes.
    static let kasURL = "http://localhost:9"

    /// Two nodes on one Redis and one key ring; `stop()` stops both, Redis and the directory.
    final class Cluster: @unchecked Sendable {
        let redis: TestRedis
        let directory: TemporaryDirectory
        let a: KASTestHarness
        let b: KASTestHarness

        init(configure: @escaping (inout KASConfiguration) -> Void = { _ in }) throws {
            redis = try TestRedis()
            directory = try TemporaryDirectory("kas-cluster")
            do {
                _ = try KeyRing.generate(dataDirectory: directory.path)
                let url = redis.url
                let setUp: (inout KASConfiguration) -> Void = { configuration in
                    configuration.store.url = url
                    configuration.acceptedKASURLs = [RedisClusterAppTests.kasURL]
                    configure(&configuration)
                }
                a = try KASTestHarness(dataDirectory: directory.path, configure: setUp)
                do {
                    b = try KASTestHarness(dataDirectory: directory.path, configure: setUp)
                } catch {
                    a.stop()
                    throw error
                }
            } catch {
                redis.stop()
                throw error
            }
        }

        func stop() {
            a.stop()
            b.stop()
            redis.stop()
        }

        /// An fps-v2 package wrapped to the shared ring's RSA key, catalogued through node A.
        func catalogue(_ rules: MediaRules?) throws -> TestPackage {
            try a.catalogue(rules, kasURL: RedisClusterAppTests.kasURL, title: "Cluster talk")
        }

        /// Every key in Redis with its value (`TestRedis.dump`).
        func dump() throws -> String { try redis.dump() }
    }

    static func object(_ result: CurlResult) -> JSONObject? { (try? JSONParser.parse(result.body))?.object }
    static func reason(_ result: CurlResult) -> String? { object(result)?["reason"]?.string }

    /// `url`'s path and query on `harness`.
    static func on(_ harness: KASTestHarness, _ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return harness.url(components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }

    @Test func aPlaybackStartedOnOneNodeIsKeyedLicensedRenewedAndReleasedThroughTheOther() throws {
        // FairPlay configured on both nodes with an SDK that answers nothing (`fail`): a valid
        // licence URL reaches it and gets 503.
        let sdk = try SDKCommandTestDouble(spcAssetID: nil)
        let certificate = try SDKCommandTestDouble.certificate(in: sdk.directory.path)
        let cluster = try Cluster { configuration in
            configuration.fairPlay = KASConfiguration.FairPlaySettings(
                certificateFile: certificate.path, transport: .command(executable: sdk.executable, arguments: sdk.arguments("fail")),
                timeoutSeconds: 5)
        }
        defer { cluster.stop() }
        let package = try cluster.catalogue(MediaRules(maxConcurrentStreams: 2))
        let subject = "cluster-viewer-\(UUID().uuidString)"
        let token = try cluster.a.token(sub: subject, entitlements: [MediaFixture.attribute])
        func start(on node: KASTestHarness, _ drmSystem: String) throws -> CurlResult {
            try node.post("/media/v1/playback", token: token, json: [("assetId", .string(package.uuid)), ("drmSystem", .string(drmSystem))])
        }

        // Node A starts an open-path playback (its session counted in Redis) ...
        let open = try start(on: cluster.a, "tdf")
        #expect(open.status == 200, "\(open.text)")
        let openPlayback = try #require(Self.object(open))
        let openID = try #require(openPlayback["playbackId"]?.string)
        let sessionID = try #require(openPlayback["sessionId"]?.string)
        // ... node B delivers the video key for the session A started and the audio key for a
        // session of the same playback it starts itself (no second stream), takes heartbeats and
        // renews the media URL.
        let audioSession = try #require(try cluster.b.startSession(token: token, asset: package.uuid,
                                                                   extra: [("playbackId", .string(openID))]))
        for (component, session) in zip(package.components, [sessionID, audioSession]) {
            let (result, clientKey) = try cluster.b.openKeyRequest(token: token, asset: package.uuid, component: component.id,
                                                                   sessionId: session, manifest: try package.manifest())
            #expect(result.status == 200, "\(component.id): \(result.text)")
            #expect(try MediaHarness.unwrap(result, with: clientKey) == component.key, "\(component.id): the packaged key")
        }
        #expect(try cluster.b.post("/media/v1/session/\(sessionID)/heartbeat", token: token, json: []).status == 200)
        let renewed = try cluster.b.post("/media/v1/playback/\(openID)/media-url", token: token, json: [])
        #expect(renewed.status == 200, "\(renewed.text)")

        // A FairPlay playback started on A: B accepts its licence URL (the SPC then reaches the
        // FairPlay SDK, which answers nothing here: 503) and refuses the URL with another signature.
        let fairplay = try start(on: cluster.a, "fairplay")
        #expect(fairplay.status == 200, "\(fairplay.text)")
        let fairplayPlayback = try #require(Self.object(fairplay))
        let fairplayID = try #require(fairplayPlayback["playbackId"]?.string)
        let licenseURL = try #require(fairplayPlayback["licenseUrls"]?.object?["video"]?.string)
        let spc = Data("spc".utf8)
        let licensed = try Curl.run(["-X", "POST", "--data-binary", "@-", "-H", "Content-Type: application/octet-stream",
                                     try Self.on(cluster.b, licenseURL)], stdin: spc)
        #expect(licensed.status == 503 && licensed.text.contains("fairplay unavailable"), "\(licensed.text)")
        let forged = try Self.on(cluster.b, licenseURL).replacingOccurrences(of: "sig=", with: "sig=A")
        let refused = try Curl.run(["-X", "POST", "--data-binary", "@-", forged], stdin: spc)
        #expect(refused.status == 403 && Self.reason(refused) == "license_url_invalid", "\(refused.text)")

        // The title's two streams are taken, whichever node counts.
        #expect(try start(on: cluster.b, "tdf").status == 429)

        // B releases both (another viewer cannot) ...
        let stranger = try cluster.a.token(sub: "stranger-\(UUID().uuidString)", entitlements: [MediaFixture.attribute])
        #expect(try cluster.b.post("/media/v1/playback/\(openID)", token: stranger, body: Data(), method: "DELETE").status == 404)
        for id in [openID, fairplayID] {
            #expect(try cluster.b.post("/media/v1/playback/\(id)", token: token, body: Data(), method: "DELETE").status == 204)
        }
        // ... and A sees it: the playbacks, their licence URL and their sessions are over, the streams free.
        #expect(try cluster.a.post("/media/v1/playback/\(openID)", token: token, body: Data(), method: "DELETE").status == 404)
        #expect(try cluster.a.post("/media/v1/playback/\(openID)/media-url", token: token, json: []).status == 404)
        #expect(try cluster.a.post("/media/v1/session/\(sessionID)/heartbeat", token: token, json: []).status == 404)
        let ended = try Curl.run(["-X", "POST", "--data-binary", "@-", try Self.on(cluster.a, licenseURL)], stdin: spc)
        #expect(ended.status == 403 && Self.reason(ended) == "playback_ended", "\(ended.text)")
        let again = try start(on: cluster.a, "tdf")
        #expect(again.status == 200, "\(again.text)")
        let againID = try #require(Self.object(again)?["playbackId"]?.string)

        // A copy of Redis names neither the viewer nor the playback nor the session.
        let dump = try cluster.dump()
        #expect(dump.contains("playback:"), "the dump holds the playback record")
        for (name, secret) in [("subject", subject), ("playback id", openID), ("playback id", fairplayID), ("playback id", againID),
                               ("session id", sessionID), ("token", token)] {
            #expect(!dump.contains(secret), "the dump holds the \(name) in the clear")
        }
    }

    /// The key-request rate limit is a media-store bucket: one window for both nodes.
    @Test func theKeyRequestRateLimitCountsRequestsToBothNodes() throws {
        let cluster = try Cluster { $0.rateLimits.keyRequestsPerMinute = 3 }
        defer { cluster.stop() }
        let token = try cluster.a.token(sub: "limited-\(UUID().uuidString)")
        // A malformed request still takes its token (the limit comes first): 400 until the
        // viewer's three are spent, on whichever node, then 429.
        let statuses = try [cluster.a, cluster.b, cluster.a, cluster.b].map { node in
            try node.post("/media/v1/key-request", token: token, json: []).status
        }
        #expect(statuses == [400, 400, 400, 429])
    }

    @Test func parallelOfflineIssuesOnBothNodesAdmitExactlyTheDeviceLimit() throws {
        let cluster = try Cluster { $0.rateLimits.keyRequestsPerMinute = 600 }
        defer { cluster.stop() }
        let package = try cluster.catalogue(MediaRules(offline: true, maxOfflineDevices: 2))
        let token = try cluster.a.token(sub: "offline-\(UUID().uuidString)", entitlements: [MediaFixture.attribute])
        let manifest = try package.manifest()
        let bodies = try (0..<20).map { _ in
            JSONWriter.write(OfflineLicenseRequest(assetID: package.uuid, manifest: manifest,
                                                   device: try OfflineDeviceKey(try ECP256.KeyAgreement.PrivateKey().publicKey),
                                                   deviceName: nil).jsonValue)
        }
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            let node = index.isMultiple(of: 2) ? cluster.a : cluster.b
            let status = (try? node.post("/media/v1/offline-license", token: token, body: bodies[index]))?.status ?? -1
            statuses.withLock { $0.append(status) }
        }
        let all = statuses.withLock { $0 }
        #expect(all.filter { $0 == 200 }.count == 2, "\(all.sorted())")
        #expect(all.filter { $0 == 429 }.count == 18, "\(all.sorted())")
    }
}

/// Start-up against a Redis that cannot serve as the state store: a clear error naming the
/// store by its redacted URL, the password nowhere.
@Suite struct RedisStartupTests {
    static func startError(_ url: RedisURL, in directory: TemporaryDirectory) -> KASApplicationError? {
        do {
            let harness = try KASTestHarness(dataDirectory: directory.path, configure: { $0.store.url = url })
            harness.stop()
            return nil
        } catch {
            return error
        }
    }

    @Test func aWrongPasswordAnUnreachableServerAndAnEvictingPolicyAreStartUpErrors() throws {
        let directory = try TemporaryDirectory("kas-store-start")
        let password = "pw-\(UUID().uuidString)"
        let guarded = try TestRedis(password: password)
        defer { guarded.stop() }
        var wrong = guarded.url
        wrong.password = "not-\(password)"
        let refused = try #require(Self.startError(wrong, in: directory))
        #expect(refused.reason.contains(wrong.redacted), "\(refused.reason)")
        #expect(!refused.description.contains(password) && !refused.description.contains("not-pw"), "\(refused.reason)")

        let evicting = try TestRedis(maxmemoryPolicy: "allkeys-lru")
        defer { evicting.stop() }
        let evicted = try #require(Self.startError(evicting.url, in: directory))
        #expect(evicted.reason.contains(evicting.url.redacted) && evicted.reason.contains("allkeys-lru"), "\(evicted.reason)")

        let gone = try TestRedis()
        let goneURL = gone.url
        gone.stop()
        let unreachable = try #require(Self.startError(goneURL, in: directory))
        #expect(unreachable.reason.contains(goneURL.redacted), "\(unreachable.reason)")
        // The right password starts it.
        #expect(Self.startError(guarded.url, in: directory) == nil)
    }
}
