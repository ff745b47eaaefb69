import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
import KASTesting
import MediaDRMMedia
import Testing

extension ToolTests {
    /// `kas store backup|restore` (issue 36): a backup taken while the KAS serves and sessions
    /// start on another thread restores every session acknowledged before it began; a tampered,
    /// interrupted or newer-schema backup is refused at restore; an occupied data directory needs
    /// --force; a Redis store is refused with Redis's own persistence to use.
    @Suite struct KASStoreBackupTests {
        private static let now = Date(timeIntervalSince1970: 1_800_000_000)

        private static func configuration(_ dataDirectory: String) -> KASConfiguration {
            var configuration = KASConfiguration()
            configuration.dataDirectory = dataDirectory
            return configuration
        }

        /// The id hash of a session a test writes into a store directly.
        private static func sessionHash(_ index: Int) -> String {
            let hex = String(index, radix: 16)
            return String(repeating: "0", count: 64 - hex.count) + hex
        }

        /// The sessions a writer thread has had acknowledged by the serving KAS's store, in order.
        private final class Acknowledged: @unchecked Sendable {
            private let lock = NSLock()
            private var ids: [String] = []
            private var stopped = false
            private var failure: String?
            let acknowledgedTen = DispatchSemaphore(value: 0)

            func append(_ id: String) {
                lock.withLock {
                    ids.append(id)
                    if ids.count == 10 { acknowledgedTen.signal() }
                }
            }
            var snapshot: [String] { lock.withLock { ids } }
            func stop() { lock.withLock { stopped = true } }
            var isStopped: Bool { lock.withLock { stopped } }
            func fail(_ reason: String) { lock.withLock { failure = reason }; acknowledgedTen.signal() }
            var failed: String? { lock.withLock { failure } }
        }

        @Test func backupWhileServingRestoresEveryAcknowledgedSession() throws {
            let temp = try TemporaryDirectory("kas-backup")
            let harness = try KASTestHarness(dataDirectory: temp.appending("served")) { configuration in
                configuration.rateLimits.sessionStartsPerMinute = 1_000_000
                configuration.media.maxLiveSessionsPerViewer = 100_000
            }
            defer { harness.stop() }
            let asset = try harness.catalogue(nil as MediaRules?, kasURL: harness.publicURL, title: "Backed up").uuid
            let token = try harness.token(sub: "backup-viewer")
            // Session starts over HTTP on another thread, for as long as the backup runs; a
            // session is acknowledged when the KAS answered its id.
            let acknowledged = Acknowledged()
            let writerDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { writerDone.signal() }
                var index = 0
                while !acknowledged.isStopped {
                    index += 1
                    guard let id = try? harness.startSession(token: token, asset: asset,
                                                             extra: [("playbackId", .string("playback-\(index)"))]) else {
                        return acknowledged.fail("session start \(index) refused")
                    }
                    acknowledged.append(id)
                }
            }
            acknowledged.acknowledgedTen.wait()
            let before = acknowledged.snapshot
            let backup = temp.appending("backup")
            let summary = try StoreBackup.backup(Self.configuration(harness.dataDirectory), to: backup)
            acknowledged.stop()
            writerDone.wait()
            #expect(acknowledged.failed == nil)
            #expect(summary.files == ["media.sqlite", "offline.sqlite", "license-url.key"])
            for name in summary.files + ["backup.json"] {
                #expect(fileMode((backup as NSString).appendingPathComponent(name)) == 0o600, "\(name)")
            }

            // Restored into a fresh data directory (with the key ring from its own backup), a KAS
            // serving it sees the catalog and every session acknowledged before the backup began.
            let restored = temp.appending("restored")
            #expect(try StoreRestore.restore(Self.configuration(restored), from: backup, force: false).files == summary.files)
            try FileManager.default.copyItem(atPath: (harness.dataDirectory as NSString).appendingPathComponent("keys"),
                                             toPath: (restored as NSString).appendingPathComponent("keys"))
            let served = try KASTestHarness(dataDirectory: restored)
            defer { served.stop() }
            #expect(try served.application.stores.catalog.entry(assetID: asset)?.title == "Backed up")
            for id in before {
                #expect(try served.application.stores.media.session(idHash: MediaSessionID.hash(id)) != nil, "\(id.suffix(6))")
            }
            let last = try #require(before.last)
            #expect(try served.post("/media/v1/session/\(last)/heartbeat", token: token, body: Data()).status == 200)
            #expect(FileManager.default.contents(atPath: KASDataDirectory(restored).licenseURLKey)
                == FileManager.default.contents(atPath: KASDataDirectory(harness.dataDirectory).licenseURLKey))
        }

        /// A data directory with a session and a catalog entry, the server stopped.
        private static func dataDirectory(in temp: TemporaryDirectory) throws -> String {
            let data = temp.appending("data")
            let stores = try KASStateStores.open(configuration(data), layout: KASDataDirectory(data), poolSize: 1)
            defer { stores.close() }
            _ = try stores.media.startSession(
                NewMediaSession(idHash: sessionHash(1), viewer: "viewer", asset: "asset", protocol: .tdf, playback: "p1", timeout: 600),
                limit: nil, maxLiveSessionsPerViewer: 10, now: now)
            _ = try stores.playbacks.licenseURLKey()
            return data
        }

        @Test func damagedBackupsAreRefusedAtRestore() throws {
            let temp = try TemporaryDirectory("kas-backup")
            let data = try Self.dataDirectory(in: temp)
            let backup = temp.appending("backup")
            let taken = try KASToolHarness.run(["store", "backup", "--to", backup, "--data-dir", data])
            #expect(taken.status == 0, "\(taken.stderr)")
            #expect(taken.output == "media.sqlite\noffline.sqlite\nlicense-url.key\n")
            let again = try KASToolHarness.run(["store", "backup", "--to", backup, "--data-dir", data])
            #expect(again.status == 1 && again.stderr.contains("back up into a new directory"), "\(again.stderr)")
            let target = temp.appending("target")
            let restore = ["store", "restore", "--from", backup, "--data-dir", target]

            // A file changed after the backup.
            let offline = (backup as NSString).appendingPathComponent("offline.sqlite")
            let original = try #require(FileManager.default.contents(atPath: offline))
            var tampered = original
            tampered[tampered.count / 2] ^= 0x01
            try tampered.write(to: URL(fileURLWithPath: offline))
            let refused = try KASToolHarness.run(restore)
            #expect(refused.status == 1 && refused.stderr.contains("'\(offline)' is not the file backup.json describes"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
            try original.write(to: URL(fileURLWithPath: offline))

            // A manifest recording a schema newer than this code's.
            let manifestPath = (backup as NSString).appendingPathComponent("backup.json")
            let manifest = try #require(FileManager.default.contents(atPath: manifestPath))
            let newer = String(decoding: manifest, as: UTF8.self)
                .replacingOccurrences(of: #""delivery_schema_version"\s*:\s*[0-9]+"#, with: #""delivery_schema_version": 99"#,
                                      options: .regularExpression)
            #expect(newer != String(decoding: manifest, as: UTF8.self))
            try Data(newer.utf8).write(to: URL(fileURLWithPath: manifestPath))
            let newerRefused = try KASToolHarness.run(restore)
            #expect(newerRefused.status == 1 && newerRefused.stderr.contains("delivery_schema_version 99, newer than this kas"),
                    "\(newerRefused.stderr)")

            // An interrupted backup: no manifest.
            try FileManager.default.removeItem(atPath: manifestPath)
            let interrupted = try KASToolHarness.run(restore)
            #expect(interrupted.status == 1 && interrupted.stderr.contains("has no backup.json: the backup did not finish"),
                    "\(interrupted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
        }

        @Test func restoreIntoAnOccupiedDataDirectoryNeedsForce() throws {
            let temp = try TemporaryDirectory("kas-backup")
            let data = try Self.dataDirectory(in: temp)
            let backup = temp.appending("backup")
            _ = try StoreBackup.backup(Self.configuration(data), to: backup)
            let refused = try KASToolHarness.run(["store", "restore", "--from", backup, "--data-dir", data])
            #expect(refused.status == 1 && refused.stderr.contains("exists: stop kas serve on"), "\(refused.stderr)")
            let forced = try KASToolHarness.run(["store", "restore", "--from", backup, "--data-dir", data, "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            let stores = try KASStateStores.open(Self.configuration(data), layout: KASDataDirectory(data), poolSize: 1)
            defer { stores.close() }
            #expect(try stores.media.session(idHash: Self.sessionHash(1)) != nil)
        }

        @Test func redisStoresAreRefused() throws {
            let temp = try TemporaryDirectory("kas-backup")
            for arguments in [["store", "backup", "--to", temp.appending("backup")], ["store", "restore", "--from", temp.path]] {
                let refused = try KASToolHarness.run(arguments + ["--store", "redis://127.0.0.1:1/0", "--data-dir", temp.appending("data")])
                #expect(refused.status == 1 && refused.stderr.contains("use Redis's own persistence (RDB snapshots or the AOF"),
                        "\(refused.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: temp.appending("backup")))
        }
    }
}
