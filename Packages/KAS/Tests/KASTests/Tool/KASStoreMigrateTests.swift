import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Testing

extension ToolTests {
    /// `kas store migrate` against a real `redis-server` (`TestRedis`): a data directory's SQLite
    /// state lands in Redis, a second run changes nothing, an earlier first play already in Redis
    /// is kept, and failures name the store without its password.
    @Suite struct KASStoreMigrateTests {
        private let asset = "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"
        private let now = Date(timeIntervalSince1970: 1_800_000_000)
        /// The playback the single node holds: renewed and licensed from Redis after the copy.
        private var playback: PlaybackRecord {
            PlaybackRecord(id: "migrated-playback-0123456789", identity: StateStoreConformanceTests.identity("alice"),
                           assetID: asset, drmSystem: .fairplay, expires: now.addingTimeInterval(3600))
        }

        /// A data directory holding one of everything the migration copies.
        private func singleNodeDirectory(_ temp: TemporaryDirectory) throws -> String {
            let data = temp.appending("data")
            let generated = try KASToolHarness.run(["keys", "generate", "--data-dir", data])
            #expect(generated.status == 0, "\(generated.stderr)")
            let layout = KASDataDirectory(data)
            let stores = try KASStateStores.open(KASConfiguration(), layout: layout, poolSize: 1)
            defer { stores.close() }
            let started = try stores.media.startSession(
                NewMediaSession(idHash: String(repeating: "ab", count: 32), viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "alice"),
                                asset: asset, protocol: .tdf, playback: "p1", timeout: 180),
                limit: 2, maxLiveSessionsPerViewer: 32, now: now)
            guard case .started = started else {
                Issue.record("the session did not start: \(started)")
                return data
            }
            try stores.media.recordFirstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "alice"), asset: asset, at: now)
            try stores.media.recordFirstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "bob"), asset: asset, at: now)
            try stores.media.setAssetStreamLimit(asset: asset, limit: 2, now: now)
            try stores.catalog.put(CatalogEntry(assetID: asset, title: "Talk", duration: 30, profile: .fpsV2, components: ["video"],
                                                mediaPath: try TitlePath("/talk.tdf"), policyJSON: Data("{}".utf8), manifest: nil),
                                   now: now)
            let outcome = try stores.offline.issue(
                OfflineLicenseRecord(id: "license-1", viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "alice"), asset: asset, playKey: asset,
                                     deviceThumbprint: "thumb", deviceName: nil, signingKid: "l1", issued: now,
                                     expires: now.addingTimeInterval(86_400), rentalEnds: nil, rules: "{}", dataAttributes: "[]",
                                     dissem: "[]", keys: "[]", released: nil, firstPlayed: nil),
                maxDevices: 2, now: now)
            #expect(outcome == .issued(replaced: 0))
            #expect(try stores.playbacks.insert(playback, maxLivePerViewer: 16, now: now) == .inserted)
            return data
        }

        @Test func copiesEveryRecordOnceAndKeepsAnEarlierFirstPlay() throws {
            let temp = try TemporaryDirectory()
            let data = try singleNodeDirectory(temp)
            let password = "pw-\(UUID().uuidString)"
            let redis = try TestRedis(password: password)
            defer { redis.stop() }
            let url = "redis://\(redis.url.host):\(redis.url.port)/0"
            // Bob's first play is already in Redis, earlier than the SQLite one: it stays. Written
            // as a node writes it, through stores opened as `kas serve` opens them.
            let node = try KASStateStores.openRedis(redis.url, poolSize: 1, timeout: 5)
            defer { node.close() }
            let target = node.media
            try target.recordFirstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "bob"), asset: asset, at: now.addingTimeInterval(-3600))

            let expected = "sessions 1\nfirst plays 2\nstream limits 1\nplaybacks 1\ncatalog entries 1\noffline licences 1\n"
            for run in 1...2 {
                let migrated = try KASToolHarness.run(["store", "migrate", "--to", url, "--data-dir", data],
                                                      environment: ["KAS_STORE_PASSWORD": password])
                #expect(migrated.status == 0, "run \(run): \(migrated.stderr)")
                #expect(migrated.output == expected, "run \(run)")
                #expect(!migrated.output.contains(password) && !migrated.stderr.contains(password))
            }
            #expect(try target.session(idHash: String(repeating: "ab", count: 32))?.asset == asset)
            #expect(try target.firstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "alice"), asset: asset) == now)
            #expect(try target.firstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: "bob"), asset: asset) == now.addingTimeInterval(-3600))
            #expect(try target.assetStreamLimit(asset: asset) == 2)
            var configuration = KASConfiguration()
            configuration.store.url = redis.url
            let shared = try KASStateStores.open(configuration, layout: KASDataDirectory(temp.appending("node")), poolSize: 1)
            defer { shared.close() }
            #expect(try shared.catalog.entry(assetID: asset)?.title == "Talk")
            #expect(try shared.offline.license(id: "license-1")?.deviceThumbprint == "thumb")
            // The playback opens in Redis, and the licence URLs the node signed still verify there.
            #expect(try shared.playbacks.live(playback.id, now: now) == playback)
            let nodeKey = try #require(try LicenseURLKeyFile.read(KASDataDirectory(data).licenseURLKey))
            #expect(try shared.playbacks.licenseURLKey() == nodeKey)
        }

        @Test func failuresNameTheStoreAndNeverThePassword() throws {
            let temp = try TemporaryDirectory()
            let data = try singleNodeDirectory(temp)
            let redis = try TestRedis(password: "the-right-one")
            defer { redis.stop() }
            let wrong = "wrong-\(UUID().uuidString)"
            let refused = try KASToolHarness.run(["store", "migrate", "--data-dir", data,
                                                  "--to", "redis://default:\(wrong)@\(redis.url.host):\(redis.url.port)/0"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("redis://default:***@\(redis.url.host):\(redis.url.port)/0"), "\(refused.stderr)")
            #expect(!refused.stderr.contains(wrong) && !refused.output.contains(wrong))

            let empty = try KASToolHarness.run(["store", "migrate", "--data-dir", temp.appending("nothing"),
                                                "--to", "redis://\(redis.url.host):\(redis.url.port)/0"])
            #expect(empty.status == 1)
            #expect(empty.stderr.contains("nothing to migrate"), "\(empty.stderr)")

            let malformed = try KASToolHarness.run(["store", "migrate", "--data-dir", data, "--to", "http://example.com"])
            #expect(malformed.status == 64, "\(malformed.stderr)")
        }
    }
}
