import Foundation

/// What the KAS keeps in its data directory besides the key ring (`keys/`, see `KeyRing`).
public struct KASDataDirectory: Sendable, Equatable {
    public let path: String

    public init(_ path: String) { self.path = path }

    /// The media store: sessions, first plays, stream limits, rate buckets, and beside them the
    /// catalog and the playbacks, each with its own schema version (SQLite, WAL: the `-wal` and
    /// `-shm` files beside it belong to it).
    public var mediaStore: String { (path as NSString).appendingPathComponent("media.sqlite") }
    /// The offline licences (SQLite, WAL), apart from the media store (docs/offline.md).
    public var offlineStore: String { (path as NSString).appendingPathComponent("offline.sqlite") }
    /// The FairPlay licence URLs' HMAC key of a single node (`LicenseURLKeyFile`, 0600).
    public var licenseURLKey: String { (path as NSString).appendingPathComponent("license-url.key") }
    /// The audit log; rotated copies are `audit.log.1` (newest) to `audit.log.N`.
    public var auditLog: String { (path as NSString).appendingPathComponent("audit.log") }

    /// Creates the directory (0700) when absent, and the store file 0600 before SQLite creates
    /// it (its WAL and shared-memory files take the database file's mode).
    package func prepare() throws(KASApplicationError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if !manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
            } catch {
                throw KASApplicationError("cannot create the data directory '\(path)'")
            }
        } else if !isDirectory.boolValue {
            throw KASApplicationError("the data directory '\(path)' is not a directory")
        }
        for store in [mediaStore, offlineStore] where !manager.fileExists(atPath: store) {
            let fd = open(store, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { Foundation.close(fd) }
        }
    }
}
