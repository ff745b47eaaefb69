import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Testing

extension ToolTests {
    /// `kas store rekey` (issue 28): stores written before viewers were keyed by issuer and
    /// subject, in SQLite and in a real `redis-server`, are refused by `kas serve` with the command
    /// to run; after it every record is found under the new keys and none under the old, and a
    /// second run is refused. Stores with no per-viewer record are marked without one.
    @Suite struct KASStoreRekeyTests {
        private static let asset = "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"
        private static let session = String(repeating: "ab", count: 32)
        private static let issuer = "https://idp.example.com"
        private static let now = Date(timeIntervalSince1970: 1_800_000_000)
        /// What one run of the rekey prints for `writeEarlierRecords`.
        private static let expectedOutput = "sessions 1\nfirst plays 2\nrate buckets 3\noffline licences 1\n"

        /// The key an earlier version kept `subject`'s records under, and the one the rekey moves them to.
        private static func old(_ subject: String) -> String { Identity.subjectKey(subject: subject) }
        private static func new(_ subject: String) -> String { Identity.storeKey(issuer: issuer, subject: subject) }

        /// One of every per-viewer record, keyed as an earlier version keyed them: a session,
        /// two first plays, a key-request, a rewrap and an offline rate bucket (one token a minute,
        /// taken), and an offline licence.
        private static func writeEarlierRecords(_ media: any MediaStore, _ offline: any OfflineLicenseStore) throws {
            let started = try media.startSession(
                NewMediaSession(idHash: session, viewer: old("alice"), asset: asset, protocol: .tdf, playback: "p1", timeout: 180),
                limit: 1, maxLiveSessionsPerViewer: 32, now: now)
            #expect(started == .started(try #require(try media.session(idHash: session)), replaced: 0))
            try media.recordFirstPlay(viewer: old("alice"), asset: asset, at: now)
            try media.recordFirstPlay(viewer: old("bob"), asset: asset, at: now)
            for bucket in ["key:" + old("alice"), "rewrap:" + old("alice"), "offline:" + old("bob")] {
                #expect(try media.consumeRateToken(key: bucket, perMinute: 1, now: now) == .allowed)
            }
            let issued = try offline.issue(
                OfflineLicenseRecord(id: "license-1", viewer: old("alice"), asset: asset, playKey: asset, deviceThumbprint: "thumb",
                                     deviceName: nil, signingKid: "l1", issued: now, expires: now.addingTimeInterval(86_400),
                                     rentalEnds: nil, rules: "{}", dataAttributes: "[]", dissem: "[]", keys: "[]",
                                     released: nil, firstPlayed: nil),
                maxDevices: 1, now: now)
            #expect(issued == .issued(replaced: 0))
        }

        /// Every record of `writeEarlierRecords` is found under the issuer's keys, none under the old ones.
        private static func expectRekeyed(_ media: any MediaStore, _ offline: any OfflineLicenseStore) throws {
            #expect(try media.session(idHash: session)?.viewer == new("alice"))
            #expect(try media.playbackRank(viewer: new("alice"), asset: asset, playback: "p1", now: now) == 0)
            #expect(try media.playbackRank(viewer: old("alice"), asset: asset, playback: "p1", now: now) == nil)
            // Her one stream is held under the new key: another playback is refused.
            let second = NewMediaSession(idHash: String(repeating: "cd", count: 32), viewer: new("alice"), asset: asset,
                                         protocol: .tdf, playback: "p2", timeout: 180)
            #expect(try media.startSession(second, limit: 1, maxLiveSessionsPerViewer: 32, now: now) == .concurrencyLimit)
            for subject in ["alice", "bob"] {
                #expect(try media.firstPlay(viewer: new(subject), asset: asset) == now)
                #expect(try media.firstPlay(viewer: old(subject), asset: asset) == nil)
            }
            // The taken tokens moved with their buckets.
            for bucket in ["key:" + new("alice"), "rewrap:" + new("alice"), "offline:" + new("bob")] {
                #expect(try media.consumeRateToken(key: bucket, perMinute: 1, now: now) != .allowed, "\(bucket.prefix(8))")
            }
            #expect(try offline.license(id: "license-1")?.viewer == new("alice"))
            #expect(try offline.release(id: "license-1", viewer: old("alice"), now: now) == false)
            #expect(try offline.release(id: "license-1", viewer: new("alice"), now: now) == true)
        }

        /// Takes a SQLite store file back to the schema before `step` (the viewer key marker), as
        /// an earlier version left it.
        private static func undoStep(_ step: [String], of migrations: [[String]], in path: String) throws {
            let version = try #require(migrations.firstIndex(of: step))
            let database = try SQLiteDatabase(path: path)
            defer { database.close() }
            try database.execute("DROP TABLE viewer_keys")
            _ = try database.query("UPDATE schema_version SET version = ?", [.integer(Int64(version))])
        }

        private static func undoViewerKeySteps(_ layout: KASDataDirectory) throws {
            try undoStep(ViewerKeyScheme.mediaStoreStep, of: SQLiteMediaStore.migrations, in: layout.mediaStore)
            try undoStep(ViewerKeyScheme.offlineStoreStep, of: SQLiteOfflineStore.migrations, in: layout.offlineStore)
        }

        private static func configuration(dataDirectory: String) -> KASConfiguration {
            var configuration = KASConfiguration()
            configuration.dataDirectory = dataDirectory
            return configuration
        }

        @Test func aDataDirectoryOfAnEarlierVersionIsRefusedUntilRekeyed() throws {
            let temp = try TemporaryDirectory()
            let data = temp.appending("data")
            #expect(try KASToolHarness.run(["keys", "generate", "--data-dir", data]).status == 0)
            let layout = KASDataDirectory(data)
            let written = try KASStateStores.openSQLite(layout)
            try Self.writeEarlierRecords(written.media, written.offline)
            written.close()
            try Self.undoViewerKeySteps(layout)

            // `kas serve` stops at start with the one command to run (the dev issuer is the only
            // one trusted); with two issuers trusted, the command names neither and lists both.
            let command = "kas store rekey --issuer \(DevIssuer.issuer) --data-dir \(data)"
            #expect {
                try ServedKAS.start(["--listen", "127.0.0.1:0", "--data-dir", data], in: temp.path).stop()
            } throws: { error in
                "\(error)".contains(command) && "\(error)".contains("media.sqlite") && "\(error)".contains("offline.sqlite")
            }
            var two = Self.configuration(dataDirectory: data)
            two.issuers = [IssuerConfiguration(issuer: Self.issuer, audiences: ["kas"], keySource: .pemFile("unused.pem"))]
            #expect {
                try KASStateStores.open(two, layout: layout, poolSize: 1).close()
            } throws: { error in
                let reason = (error as? KASApplicationError)?.reason ?? ""
                return reason.contains("kas store rekey --issuer <issuer> --data-dir \(data)")
                    && reason.contains("trusted now: \(Self.issuer), \(DevIssuer.issuer)")
            }

            let rekeyed = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--data-dir", data])
            #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
            #expect(rekeyed.output == Self.expectedOutput)
            let again = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--data-dir", data])
            #expect(again.status == 1 && again.output.isEmpty)
            #expect(again.stderr.contains("already (rekeyed to issuer \(Self.issuer)): nothing to rekey"), "\(again.stderr)")

            let stores = try KASStateStores.open(Self.configuration(dataDirectory: data), layout: layout, poolSize: 1)
            defer { stores.close() }
            try Self.expectRekeyed(stores.media, stores.offline)
        }

        @Test func storesWithoutViewerRecordsAreMarkedWithoutARekey() throws {
            let temp = try TemporaryDirectory()
            let layout = KASDataDirectory(temp.appending("data"))
            // A new store, and one of an earlier version that only holds a catalog entry.
            let fresh = try KASStateStores.open(Self.configuration(dataDirectory: layout.path), layout: layout, poolSize: 1)
            try fresh.catalog.put(CatalogEntry(assetID: Self.asset, title: "Talk", duration: 30, profile: .fpsV2, components: ["video"],
                                               mediaPath: try TitlePath("/talk.tdf"), policyJSON: Data("{}".utf8), manifest: nil),
                                  now: Self.now)
            fresh.close()
            try Self.undoViewerKeySteps(layout)
            try KASStateStores.open(Self.configuration(dataDirectory: layout.path), layout: layout, poolSize: 1).close()
            let refused = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--data-dir", layout.path])
            #expect(refused.status == 1 && refused.stderr.contains("keys viewers by issuer and subject already: nothing to rekey"),
                    "\(refused.stderr)")
            let empty = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--data-dir", temp.appending("nothing")])
            #expect(empty.status == 1 && empty.stderr.contains("nothing to rekey; check --data-dir"), "\(empty.stderr)")
            #expect(try KASToolHarness.run(["store", "rekey", "--data-dir", layout.path]).status == 64)
        }

        @Test func aRedisStoreOfAnEarlierVersionIsRefusedUntilRekeyed() throws {
            let password = "pw-\(UUID().uuidString)"
            let redis = try TestRedis(password: password)
            defer { redis.stop() }
            let client = RedisClient(url: redis.url, poolSize: 1)
            defer { client.close() }
            // Written as an earlier version wrote them: no marker.
            try Self.writeEarlierRecords(RedisMediaStore(client: client), RedisOfflineLicenseStore(client: client))
            let bare = "redis://\(redis.url.host):\(redis.url.port)/0"
            var configuration = KASConfiguration()
            configuration.store.url = redis.url
            #expect {
                try KASStateStores.open(configuration, layout: KASDataDirectory(""), poolSize: 1).close()
            } throws: { error in
                (error as? KASApplicationError)?.reason
                    .contains("kas store rekey --issuer \(DevIssuer.issuer) --store \(bare) (with KAS_STORE_PASSWORD set)") == true
            }

            let environment = ["KAS_STORE_PASSWORD": password]
            let rekeyed = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--store", bare], environment: environment)
            #expect(rekeyed.status == 0, "\(rekeyed.stderr)")
            #expect(rekeyed.output == Self.expectedOutput)
            #expect(!rekeyed.output.contains(password) && !rekeyed.stderr.contains(password))
            let again = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--store", bare], environment: environment)
            #expect(again.status == 1 && again.stderr.contains("already (rekeyed to issuer \(Self.issuer))"), "\(again.stderr)")

            // No key or value names an old viewer key any more (set names, index members, fields).
            let dump = try redis.dump()
            for subject in ["alice", "bob"] {
                #expect(!dump.contains(Self.old(subject)) && dump.contains(Self.new(subject)))
            }
            let stores = try KASStateStores.open(configuration, layout: KASDataDirectory(""), poolSize: 1)
            try Self.expectRekeyed(stores.media, stores.offline)
            stores.close()

            // An empty Redis is marked at its first opening, with nothing to rekey.
            try redis.redisCLI("FLUSHALL")
            try KASStateStores.open(configuration, layout: KASDataDirectory(""), poolSize: 1).close()
            #expect(try redis.redisCLI("HGET", "kas:viewer-keys", "scheme") == "issuer+subject")
            let fresh = try KASToolHarness.run(["store", "rekey", "--issuer", Self.issuer, "--store", bare], environment: environment)
            #expect(fresh.status == 1 && fresh.stderr.contains("issuer and subject already: nothing to rekey"), "\(fresh.stderr)")
        }
    }
}
