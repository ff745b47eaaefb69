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
import Synchronization
import Testing

/// What only the Redis stores have to show: atomic steps across nodes (two clients on one
/// server), sealed playbacks, and failure as `StoreError(.unavailable)`.
@Suite struct RedisStateStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func parallelIssuesOnTwoNodesAdmitExactlyTheDeviceLimit() throws {
        try StateStoreFixture.with(.redis) { fixture throws in
            let other = try fixture.secondNode()
            defer { other.close() }
            let nodes = [fixture.stores.offline, other.offline]
            let outcomes = Mutex<[OfflineIssueOutcome?]>([])
            DispatchQueue.concurrentPerform(iterations: 20) { index in
                let record = OfflineLicenseRecord(
                    id: "l\(index)", viewer: "viewer", asset: "asset", playKey: "asset", deviceThumbprint: "device-\(index)",
                    deviceName: nil, signingKid: "kid", issued: t0, expires: t0.addingTimeInterval(60), rentalEnds: nil,
                    rules: "{}", dataAttributes: "[]", dissem: "[]", keys: "[]", released: nil, firstPlayed: nil)
                let outcome = try? nodes[index % 2].issue(record, maxDevices: 2, now: t0)
                outcomes.withLock { $0.append(outcome) }
            }
            let all = outcomes.withLock { $0 }
            #expect(all.filter { $0 == .issued(replaced: 0) }.count == 2)
            #expect(all.filter { $0 == .deviceLimit }.count == 18)
            #expect(try fixture.stores.offline.allLicenses().count == 2)
        }
    }

    @Test func twoNodesPuttingOneMediaPathKeepExactlyOne() throws {
        try StateStoreFixture.with(.redis) { fixture throws in
            let other = try fixture.secondNode()
            defer { other.close() }
            let nodes = [fixture.stores.catalog, other.catalog]
            let stored = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 10) { index in
                let asset = String(format: "%08x-0000-4000-8000-000000000000", index)
                guard let entry = try? StateStoreConformanceTests.entry(asset, title: "T\(index)", path: "/same.tdf") else { return }
                if (try? nodes[index % 2].put(entry, now: t0)) != nil { stored.add(1, ordering: .relaxed) }
            }
            #expect(stored.load(ordering: .relaxed) == 1)
            #expect(try fixture.stores.catalog.entries().count == 1)
        }
    }

    @Test func aPlaybackIsSealedUnderItsIdAndSharedByEveryNode() throws {
        try StateStoreFixture.with(.redis) { fixture throws in
            let redis = try #require(fixture.redis)
            let other = try fixture.secondNode()
            defer { other.close() }
            let subject = "sealed-subject-\(UUID().uuidString)"
            let id = Base64URL.encode(try SecureRandom.bytes(count: 16))
            let playback = PlaybackRecord(id: id, identity: StateStoreConformanceTests.identity(subject), assetID: "asset-1",
                                          drmSystem: .fairplay, expires: t0.addingTimeInterval(600))
            #expect(try fixture.stores.playbacks.insert(playback, maxLivePerViewer: 16, now: t0) == .inserted)
            #expect(try other.playbacks.live(id, now: t0) == playback)
            let urlKey = try fixture.stores.playbacks.licenseURLKey()
            #expect(try other.playbacks.licenseURLKey() == urlKey, "one licence URL key for every node")

            // Stored under SHA-256 of the id, sealed: neither the id nor the subject in the clear.
            let key = "kas:playback:" + Hex.encode(SHA256Digest.hash(data: Data(id.utf8)))
            #expect(try redis.redisCLI("--scan").contains(key))
            let stored = try redis.redisCLI("HGETALL", key)
            #expect(!stored.contains(subject) && !stored.contains(id) && !stored.contains("asset-1"))

            // A sealed value moved to another playback's key does not open there: an error,
            // never another viewer's playback.
            let otherID = Base64URL.encode(try SecureRandom.bytes(count: 16))
            _ = try fixture.stores.playbacks.insert(PlaybackRecord(id: otherID, identity: StateStoreConformanceTests.identity("b"),
                                                                   assetID: "asset-2", drmSystem: .tdf,
                                                                   expires: t0.addingTimeInterval(600)), maxLivePerViewer: 16, now: t0)
            let sealed = try redis.redisCLI("HGET", key, "sealed").trimmingCharacters(in: .whitespacesAndNewlines)
            _ = try redis.redisCLI("HSET", "kas:playback:" + Hex.encode(SHA256Digest.hash(data: Data(otherID.utf8))), "sealed", sealed)
            #expect(throws: StoreError(.unavailable, "")) { _ = try other.playbacks.live(otherID, now: t0) }
            _ = try redis.redisCLI("HSET", key, "sealed", "not base64!")
            #expect(throws: StoreError(.unavailable, "")) { _ = try other.playbacks.live(id, now: t0) }
        }
    }

    @Test func aStoppedRedisIsUnavailableToEveryStore() throws {
        try StateStoreFixture.with(.redis) { fixture throws in
            let redis = try #require(fixture.redis)
            redis.stop()
            let stores = fixture.stores
            let unavailable = StoreError(.unavailable, "")
            #expect(throws: unavailable) { _ = try stores.catalog.entries() }
            #expect(throws: unavailable) { _ = try stores.catalog.entry(assetID: "a") }
            #expect(throws: unavailable) { _ = try stores.offline.license(id: "l") }
            #expect(throws: unavailable) { _ = try stores.offline.liveSigningKids(now: t0) }
            #expect(throws: unavailable) { _ = try stores.playbacks.live("p", now: t0) }
            #expect(throws: unavailable) {
                _ = try stores.playbacks.insert(PlaybackRecord(id: "p", identity: StateStoreConformanceTests.identity("s"),
                                                               assetID: "a", drmSystem: .tdf, expires: t0), maxLivePerViewer: 16, now: t0)
            }
            #expect(throws: unavailable) { _ = try stores.playbacks.release("p", viewer: "v", now: t0) }
        }
    }

    /// `kas assets` writes and reads the catalog of the store `kas serve` would use.
    @Test func kasAssetsUsesTheConfiguredRedis() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let directory = try TemporaryDirectory("kas-assets-redis")
        _ = try KeyRing.generate(dataDirectory: directory.path)
        let asset = "aaaaaaaa-0000-4000-8000-00000000000a"
        let stores = try KASStateStores.openRedis(redis.url, poolSize: 1, timeout: 5)
        defer { stores.close() }
        try stores.catalog.put(try StateStoreConformanceTests.entry(asset, title: "In Redis", path: "/r.tdf"), now: t0)
        let environment = ["KAS_STORE_URL": redis.url.description]
        let listed = try KASToolHarness.run(["assets", "list", "--data-dir", directory.path], environment: environment)
        #expect(listed.status == 0 && listed.output.contains(asset) && listed.output.contains("In Redis"), "\(listed.stderr)")
        #expect(try KASToolHarness.run(["assets", "list", "--data-dir", directory.path]).output.isEmpty, "SQLite holds none")
        let removed = try KASToolHarness.run(["assets", "remove", asset, "--data-dir", directory.path], environment: environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try stores.catalog.entries().isEmpty)
        // An unreachable store is a clear failure naming it.
        let gone = try TestRedis()
        let goneURL = gone.url
        gone.stop()
        let failed = try KASToolHarness.run(["assets", "list", "--data-dir", directory.path],
                                           environment: ["KAS_STORE_URL": goneURL.description])
        #expect(failed.status != 0 && failed.stderr.contains(goneURL.redacted), "\(failed.stderr)")
    }
}
