import Foundation
import MediaDRMCrypto
import MediaDRMEncoding

/// `kas store backup`: a copy of a data directory's SQLite state (docs/kas.md "Backups") taken
/// while `kas serve` keeps serving: `media.sqlite` (media store, catalog, playbacks),
/// `offline.sqlite` and `license-url.key`, into a new directory, `backup.json` written last.
///
/// Not the key ring (`keys/`): it is backed up apart, sealed, and a copy of it lying beside the
/// state would be the unsealed keys of every title. Not the audit log: it is append-only and
/// shipped as it is written. A Redis store is refused: Redis's own persistence (RDB snapshots,
/// the AOF) is its backup.
package enum StoreBackup {
    /// The files of a backup, in the order they are taken and restored.
    static let files = [mediaStore, offlineStore, licenseURLKey]
    static let mediaStore = "media.sqlite"
    static let offlineStore = "offline.sqlite"
    static let licenseURLKey = "license-url.key"

    /// The schema versions this code writes, per database file and version table: a backup
    /// recording a higher one was taken by a newer KAS and is refused at restore.
    static let schemaVersions: [String: [String: Int]] = [
        mediaStore: [
            "schema_version": SQLiteMediaStore.migrations.count,
            "delivery_schema_version": SQLiteCatalog.migrations.count,
            "playback_schema_version": SQLitePlaybackStore.migrations.count,
        ],
        offlineStore: ["schema_version": SQLiteOfflineStore.migrations.count],
    ]

    /// What a backup holds.
    public struct Summary: Sendable, Equatable {
        public let files: [String]
        public let createdMs: Int64
    }

    /// Copies the state of `configuration.dataDirectory` into the new directory `destination`.
    /// Each database is copied with SQLite's online backup API (`SQLiteDatabase.copy(from:)`):
    /// a consistent snapshot of that file; the files are taken one after the other.
    public static func backup(_ configuration: KASConfiguration, to destination: String,
                              now: () -> Date = { Date() }) throws(KASApplicationError) -> Summary {
        try refuseRedis(configuration, verb: "backup")
        let layout = KASDataDirectory(configuration.dataDirectory)
        guard FileManager.default.fileExists(atPath: layout.mediaStore) else {
            throw KASApplicationError("no media store in '\(layout.path)' (media.sqlite): nothing to back up; check --data-dir")
        }
        let manager = FileManager.default
        guard !manager.fileExists(atPath: destination) else {
            throw KASApplicationError("'\(destination)' exists: back up into a new directory (--to names one that does not exist yet)")
        }
        do {
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        } catch {
            throw KASApplicationError("cannot create the backup directory '\(destination)'")
        }
        let createdMs = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        var entries: [BackupManifest.File] = []
        for name in files {
            let source = (layout.path as NSString).appendingPathComponent(name)
            guard manager.fileExists(atPath: source) else { continue }
            let target = (destination as NSString).appendingPathComponent(name)
            let schemas: [String: Int]
            if let tables = schemaVersions[name] {
                schemas = try copyDatabase(source, to: target, tables: Array(tables.keys))
            } else {
                guard try copyLicenseURLKey(source, to: target) else { continue }
                schemas = [:]
            }
            let bytes = try read(target)
            entries.append(BackupManifest.File(name: name, bytes: Int64(bytes.count), sha256: digest(bytes), schemas: schemas))
        }
        // Last, and atomically: a directory without it is a backup that did not finish.
        let manifest = BackupManifest(createdMs: createdMs, files: entries)
        let manifestPath = (destination as NSString).appendingPathComponent(BackupManifest.fileName)
        do {
            try AtomicFileWriter.write(manifest.json, to: manifestPath, mode: 0o600)
        } catch {
            throw KASApplicationError("cannot write '\(manifestPath)': \(error.description)")
        }
        return Summary(files: entries.map(\.name), createdMs: createdMs)
    }

    /// Refuses a Redis store: a data directory's files are not its state.
    static func refuseRedis(_ configuration: KASConfiguration, verb: String) throws(KASApplicationError) {
        guard let url = configuration.store.url else { return }
        throw KASApplicationError(
            "the state is in the Redis store \(url.redacted), which kas store \(verb) does not copy: use Redis's own persistence "
                + "(RDB snapshots or the AOF, on the Redis server) to back it up and restore it")
    }

    /// The online copy of one database into a new file (0600 from creation on); the schema
    /// versions `tables` record in the copy.
    private static func copyDatabase(_ source: String, to target: String,
                                     tables: [String]) throws(KASApplicationError) -> [String: Int] {
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KASApplicationError("cannot create '\(target)'") }
        Foundation.close(fd)
        do throws(StoreError) {
            let origin = try SQLiteDatabase(path: source)
            defer { origin.close() }
            let copy = try SQLiteDatabase(path: target, wal: false)
            defer { copy.close() }
            try copy.copy(from: origin)
            var schemas: [String: Int] = [:]
            for table in tables {
                if let version = try copy.schemaVersion(table: table) { schemas[table] = version }
            }
            return schemas
        } catch {
            throw KASApplicationError("cannot back up '\(source)' into '\(target)': \(error.reason)")
        }
    }

    /// Copies the key, checked as `kas serve` reads it; false when it is gone.
    private static func copyLicenseURLKey(_ source: String, to target: String) throws(KASApplicationError) -> Bool {
        let key: SecretKey?
        do {
            key = try LicenseURLKeyFile.read(source)
        } catch {
            throw KASApplicationError("cannot back up '\(source)': \(error.reason)")
        }
        guard let key else { return false }
        do {
            try AtomicFileWriter.write(key.withUnsafeBytes { Data($0) }, to: target, mode: 0o600)
        } catch {
            throw KASApplicationError("cannot write '\(target)': \(error.description)")
        }
        return true
    }

    static func read(_ path: String) throws(KASApplicationError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KASApplicationError("cannot read '\(path)'")
        }
        return data
    }

    static func digest(_ bytes: Data) -> String { Hex.encode(SHA256Digest.hash(data: bytes)) }
}
