import Foundation
import MediaDRMEncoding

/// `kas store restore`: puts a `kas store backup` back into a data directory (docs/kas.md
/// "Backups"), after checking that the backup finished (`backup.json` is there), that every file
/// is the one the manifest describes (size and SHA-256) and that no schema is newer than this
/// code's.
///
/// Nothing locks a data directory against a running `kas serve`, so restore cannot see one:
/// it refuses to replace any state file that exists unless `force`, and the docs say to stop
/// the server first (replacing a database under a live connection, and removing its WAL,
/// would corrupt what that server writes next).
package enum StoreRestore {
    /// Restores the backup in `source` into `configuration.dataDirectory` (created 0700 when absent).
    public static func restore(_ configuration: KASConfiguration, from source: String,
                               force: Bool) throws(KASApplicationError) -> StoreBackup.Summary {
        try StoreBackup.refuseRedis(configuration, verb: "restore")
        let manifest = try readManifest(source)
        let contents = try verifiedFiles(manifest, in: source)
        let layout = KASDataDirectory(configuration.dataDirectory)
        let manager = FileManager.default
        if !force {
            for file in manifest.files {
                let target = (layout.path as NSString).appendingPathComponent(file.name)
                for path in [target, target + "-wal"] where manager.fileExists(atPath: path) {
                    throw KASApplicationError(
                        "'\(path)' exists: stop kas serve on '\(layout.path)' and run again with --force to replace its state, "
                            + "or restore into a new --data-dir")
                }
            }
        }
        var isDirectory: ObjCBool = false
        if !manager.fileExists(atPath: layout.path, isDirectory: &isDirectory) {
            do {
                try manager.createDirectory(atPath: layout.path, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
            } catch {
                throw KASApplicationError("cannot create the data directory '\(layout.path)'")
            }
        } else if !isDirectory.boolValue {
            throw KASApplicationError("the data directory '\(layout.path)' is not a directory")
        }
        // Every file is written whole under a temporary name first, so a failure (disk full)
        // leaves the data directory as it was; then each is renamed into place.
        var writers: [(name: String, writer: AtomicFileWriter)] = []
        for file in manifest.files {
            let target = (layout.path as NSString).appendingPathComponent(file.name)
            do {
                let writer = try AtomicFileWriter(destination: target, mode: 0o600)
                try writer.write(contents[file.name] ?? Data())
                writers.append((file.name, writer))
            } catch {
                throw KASApplicationError("cannot write '\(target)': \(error.description)")
            }
        }
        for (name, writer) in writers {
            if StoreBackup.schemaVersions[name] != nil {
                // The replaced database's WAL would be replayed into the restored file.
                for suffix in ["-wal", "-shm"] {
                    let stale = writer.destination + suffix
                    guard unlink(stale) == 0 || errno == ENOENT else {
                        throw KASApplicationError("cannot remove '\(stale)': stop kas serve on '\(layout.path)' and check the file's permissions")
                    }
                }
            }
            do {
                try writer.commit()
            } catch {
                throw KASApplicationError("cannot put '\(writer.destination)' in place: \(error.description)")
            }
        }
        return StoreBackup.Summary(files: manifest.files.map(\.name), createdMs: manifest.createdMs)
    }

    private static func readManifest(_ source: String) throws(KASApplicationError) -> BackupManifest {
        let path = (source as NSString).appendingPathComponent(BackupManifest.fileName)
        guard FileManager.default.fileExists(atPath: path) else {
            throw KASApplicationError(
                "'\(source)' has no \(BackupManifest.fileName): the backup did not finish (or is not a kas store backup); "
                    + "take a new one with kas store backup")
        }
        guard let manifest = BackupManifest(json: try StoreBackup.read(path)) else {
            throw KASApplicationError("'\(path)' is not a backup manifest this kas reads: restore it with the kas that took it")
        }
        return manifest
    }

    /// The bytes of every file the manifest lists, each checked against it.
    private static func verifiedFiles(_ manifest: BackupManifest,
                                      in source: String) throws(KASApplicationError) -> [String: Data] {
        let manifestPath = (source as NSString).appendingPathComponent(BackupManifest.fileName)
        guard manifest.files.contains(where: { $0.name == StoreBackup.mediaStore }) else {
            throw KASApplicationError("'\(manifestPath)' lists no \(StoreBackup.mediaStore): not a kas store backup")
        }
        var contents: [String: Data] = [:]
        for file in manifest.files {
            // Only the known names: a manifest never writes outside the data directory's state files.
            guard StoreBackup.files.contains(file.name), contents[file.name] == nil else {
                throw KASApplicationError("'\(manifestPath)' lists '\(file.name)', not a file of a kas store backup")
            }
            let path = (source as NSString).appendingPathComponent(file.name)
            let bytes = try StoreBackup.read(path)
            guard Int64(bytes.count) == file.bytes, StoreBackup.digest(bytes) == file.sha256 else {
                throw KASApplicationError(
                    "'\(path)' is not the file \(BackupManifest.fileName) describes (size or SHA-256 differs): "
                        + "the backup was changed or damaged; restore another one")
            }
            for (table, version) in file.schemas.sorted(by: { $0.key < $1.key }) {
                let known = StoreBackup.schemaVersions[file.name]?[table] ?? -1
                guard version <= known else {
                    throw KASApplicationError(
                        "'\(path)' has \(table) \(version), newer than this kas (\(max(known, 0))): "
                            + "restore it with a kas at least as new as the one that took the backup")
                }
            }
            contents[file.name] = bytes
        }
        return contents
    }
}
