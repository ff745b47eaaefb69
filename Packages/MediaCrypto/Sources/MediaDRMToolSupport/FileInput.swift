import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads input files with failures that name the file, its role and the system's reason, and
/// with a size limit checked before anything is allocated.
public enum FileInput {
    /// The whole file at `path`. `role` names it in errors ("KAS private key", "input").
    public static func read(_ path: String, role: String, maxBytes: Int = Int.max) throws(ToolFailure) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw ToolFailure("cannot read \(role) '\(path)': is a directory")
        }
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > maxBytes {
            throw ToolFailure("\(role) '\(path)' is too large (\(info.st_size) bytes, limit \(maxBytes))")
        }
        var result = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                Foundation.read(fd, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
            }
            if count == 0 { break }
            guard result.count + count <= maxBytes else {
                throw ToolFailure("\(role) '\(path)' is too large (limit \(maxBytes) bytes)")
            }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    /// The whole file at `path` into `buffer` (replacing its contents, reusing its storage): the
    /// size from fstat is allocated once and filled by read(2) directly, with no growing Data and
    /// no Data-to-Array copy. Playback reads every ~7.5 MB segment this way.
    public static func read(_ path: String, role: String, maxBytes: Int = Int.max, into buffer: inout [UInt8]) throws(ToolFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw ToolFailure("cannot read \(role) '\(path)': is a directory")
        }
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > maxBytes {
            throw ToolFailure("\(role) '\(path)' is too large (\(info.st_size) bytes, limit \(maxBytes))")
        }
        // A regular file's size (plus one byte to see the end) is read in one go; pipes and
        // files that grow double the buffer.
        var want = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) + 1 : 1 << 16
        var filled = 0
        // The old contents are overwritten, not cleared: only growth is zero-filled.
        if buffer.count < want { buffer.append(contentsOf: repeatElement(0, count: want - buffer.count)) }
        want = buffer.count * 2
        while true {
            if filled == buffer.count {
                buffer.append(contentsOf: repeatElement(0, count: max(want - buffer.count, 1 << 12)))
                want = buffer.count * 2
            }
            let count = buffer.withUnsafeMutableBytes { bytes in
                Foundation.read(fd, bytes.baseAddress.map { $0 + filled }, bytes.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
            }
            if count == 0 { break }
            filled += count
            guard filled <= maxBytes else {
                throw ToolFailure("\(role) '\(path)' is too large (limit \(maxBytes) bytes)")
            }
        }
        buffer.removeLast(buffer.count - filled)
    }

    /// The file at `path` as UTF-8 text (PEM keys, JSON policies).
    public static func readText(_ path: String, role: String, maxBytes: Int = 1 << 20) throws(ToolFailure) -> String {
        let data = try read(path, role: role, maxBytes: maxBytes)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ToolFailure("\(role) '\(path)' is not UTF-8 text")
        }
        return text
    }
}

extension FileInput {
    /// Checks that `path` names a readable regular file (or device/pipe) and returns its size,
    /// so a verb can fail with the system's reason before any work starts.
    public static func checkReadable(_ path: String, role: String) throws(ToolFailure) -> Int64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ToolFailure("cannot read \(role) '\(path)': \(systemErrorText(errno))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw ToolFailure("cannot read \(role) '\(path)': is a directory")
        }
        return Int64(info.st_size)
    }

    /// True when both paths name the same existing file (so an output would replace its input).
    public static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
