import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations of the offline library: every record is replaced atomically (a
/// temporary file beside it, fsynced, renamed; `AtomicFileWriter`), owner-only (0600 files, 0700
/// directories), and read with a size limit.
enum LibraryFiles {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    /// Writes `data` to `path` so that a reader sees the old file or the new one, never a part.
    static func write(_ data: some DataProtocol, to path: String) throws(OfflineError) {
        do {
            try AtomicFileWriter.write(data, to: path, mode: fileMode)
        } catch {
            throw OfflineError(.library, "'\(path)' could not be written: check the library's free space and permissions")
        }
    }

    /// The file's bytes, or nil when it does not exist; a file larger than `maxBytes` is refused.
    static func read(_ path: String, maxBytes: Int) throws(OfflineError) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw OfflineError(.library, "'\(path)' could not be opened: check the library's permissions")
            }
            return nil
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxBytes + 1) ?? Data() else {
            throw OfflineError(.library, "'\(path)' could not be read")
        }
        guard data.count <= maxBytes else { throw OfflineError(.library, "'\(path)' is larger than a library record may be") }
        return data
    }

    /// Creates `path` (0700) when missing; an existing one must be a directory that only its
    /// owner, this user, can enter.
    static func ensurePrivateDirectory(_ path: String) throws(OfflineError) {
        var info = stat()
        if stat(path, &info) != 0 {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != path, !FileManager.default.fileExists(atPath: parent) {
                do {
                    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                } catch {
                    throw OfflineError(.library, "'\(parent)' could not be created: check the path and its permissions")
                }
            }
            guard mkdir(path, directoryMode) == 0 || errno == EEXIST else {
                throw OfflineError(.library, "'\(path)' could not be created: check the path and its permissions")
            }
            guard stat(path, &info) == 0 else { throw OfflineError(.library, "'\(path)' could not be created") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw OfflineError(.library, "'\(path)' exists and is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw OfflineError(.library, "'\(path)' belongs to another user: a library belongs to one user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw OfflineError(.library, "'\(path)' can be read by other users: run chmod 700 on it")
        }
    }

    /// Size of a regular file, or nil when it does not exist.
    static func size(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension LibraryFiles {
    /// Lower-case hex SHA-256 of a file, read through a memory map (a film is not loaded whole).
    static func sha256Hex(ofFile path: String) throws(OfflineError) -> String {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw OfflineError(.packageChanged, "the stored package could not be read: delete the title and download it again")
        }
        return Hex.encode(SHA256Digest.hash(data: data))
    }
}
