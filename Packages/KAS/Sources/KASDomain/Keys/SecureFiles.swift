import Foundation
import MediaDRMEncoding
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations for secret material: private directories, files written atomically with an
/// exact mode, reads that refuse symlinks and files others can read.
package enum SecureFiles {
    /// Largest key-ring file read (an index or a PEM); anything bigger is not ours.
    static let maximumFileSize = 1 << 20

    /// The permission bits of `path` (following no symlink), or nil when it does not exist.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The directory part (empty for a bare name, "/" at the root) and the last component, split
    /// at the last slash. NSString's path methods trap on a one-character relative path such as
    /// `--data-dir d` (swift-corelibs-foundation on Linux), so operator paths never go through them.
    package static func split(_ path: String) -> (directory: String, name: String) {
        AtomicFileWriter.split(path)
    }

    /// Creates `path` (and missing parents) and leaves `path` itself a directory of mode 0700.
    static func makePrivateDirectory(_ path: String) throws(KeyRingError) {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw KeyRingError(.io, "'\(path)' exists and is not a directory")
            }
        } else {
            let parent = Self.split(path).directory
            if !parent.isEmpty, parent != path, !exists(parent) {
                do {
                    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                } catch {
                    throw KeyRingError(.io, "cannot create directory '\(parent)'")
                }
            }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw KeyRingError(.io, "cannot create directory '\(path)': \(errorText(errno))")
            }
        }
        guard chmod(path, 0o700) == 0 else {
            throw KeyRingError(.io, "cannot set mode 0700 on '\(path)': \(errorText(errno))")
        }
    }

    /// Writes `bytes` to `path` so that readers see the old file or the complete new one, with
    /// exactly `mode` from creation on: MediaDRMEncoding's `AtomicFileWriter` (a temporary file
    /// in the same directory, fsynced, renamed over `path`, then the directory fsynced).
    static func writeAtomically(_ bytes: some DataProtocol, to path: String, mode: mode_t) throws(KeyRingError) {
        do {
            try AtomicFileWriter.write(bytes, to: path, mode: mode)
        } catch {
            throw KeyRingError(.io, error.description)
        }
    }

    /// Removes `path` and makes the removal durable.
    static func remove(_ path: String) throws(KeyRingError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw KeyRingError(.io, "cannot remove '\(path)': \(errorText(errno))")
        }
        syncDirectory(Self.split(path).directory)
    }

    /// Reads a regular file (never through a symlink). With `privateFile`, a file that group or
    /// others may read is refused the way ssh refuses a readable identity file.
    static func read(_ path: String, privateFile: Bool, missing: KeyRingError) throws(KeyRingError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { throw missing }
            throw KeyRingError(.io, "cannot open '\(path)': \(errorText(errno))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw KeyRingError(.io, "'\(path)' is not a regular file")
        }
        if privateFile, info.st_mode & 0o077 != 0 {
            throw KeyRingError(
                .insecurePermissions,
                "'\(path)' is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0600")
        }
        guard info.st_size <= maximumFileSize else {
            throw KeyRingError(.io, "'\(path)' is larger than \(maximumFileSize) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.read(fd, base + total, raw.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw KeyRingError(.io, "cannot read '\(path)': \(errorText(errno))")
            }
            if count == 0 { break }
            total += count
        }
        return Array(bytes.prefix(total))
    }

    /// Runs `body` holding an exclusive advisory lock on `<directory>/.lock`, so two `kas keys`
    /// runs cannot interleave their read-modify-write of the index.
    static func withExclusiveLock<T>(in directory: String, _ body: () throws(KeyRingError) -> T) throws(KeyRingError) -> T {
        let path = (directory as NSString).appendingPathComponent(".lock")
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw KeyRingError(.io, "cannot open the lock file '\(path)': \(errorText(errno))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw KeyRingError(.io, "cannot lock '\(path)': \(errorText(errno))")
            }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
