import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file that appears under its final name only when complete: bytes go to a
/// temporary file in the same directory (so the rename cannot cross file systems), `commit()`
/// syncs and renames it, and anything not committed is removed (explicitly by `discard()` or
/// when the object is released).
public final class ZIPAtomicFile {
    public let destinationPath: String
    public let temporaryPath: String
    /// The sink to hand to a `ZIPWriter`.
    public let sink: ZIPFileSink
    private var settled = false

    public init(path: String) throws(ZIPError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        guard !name.isEmpty else { throw ZIPError(.invalidArgument, "the destination has no file name") }
        // A rename over a device, pipe or directory would replace it (as root, /dev/null with a
        // regular file): only a missing destination or a regular file is ever replaced.
        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT != S_IFREG {
            throw ZIPError(.invalidArgument, "the destination exists and is not a regular file")
        }
        var attempt = 0
        while true {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = (directory as NSString).appendingPathComponent(".\(name).\(suffix).partial")
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                destinationPath = path
                temporaryPath = candidate
                sink = ZIPFileSink(descriptor: fd, owns: true)
                return
            }
            let code = errno
            attempt += 1
            guard code == EEXIST, attempt < 16 else {
                // The path is the caller's own; the OS error says what to fix (a missing
                // directory, a read-only file system, permissions).
                throw ZIPError(.io, "cannot write output '\(path)': \(String(cString: strerror(code)))")
            }
        }
    }

    /// Syncs the temporary file and renames it onto the destination.
    public func commit() throws(ZIPError) {
        guard !settled else { throw ZIPError(.invalidArgument, "the atomic file was already committed or discarded") }
        do {
            try sink.synchronize()
        } catch {
            discard()
            throw error
        }
        guard rename(temporaryPath, destinationPath) == 0 else {
            discard()
            throw ZIPError(.io, "renaming the finished archive into place failed")
        }
        settled = true
        // Make the rename itself durable; a failure here leaves a complete file in place.
        let directory = (destinationPath as NSString).deletingLastPathComponent
        let dirfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    /// Removes the temporary file; the destination is untouched.
    public func discard() {
        guard !settled else { return }
        settled = true
        unlink(temporaryPath)
    }

    deinit { discard() }
}

extension ZIPWriter {
    /// Writes an archive to `path` atomically: `body` adds the entries, then the archive is
    /// finished and renamed into place. If `body` or finishing throws, no file appears at `path`
    /// and the temporary file is removed; the error is rethrown unchanged.
    public static func writeAtomically(toPath path: String,
                                       layout: Layout = .standard,
                                       allowZIP64: Bool = false,
                                       forceZIP64: Bool = false,
                                       _ body: (ZIPWriter) throws -> Void) throws {
        let file = try ZIPAtomicFile(path: path)
        do {
            let writer = try ZIPWriter(sink: file.sink, layout: layout, allowZIP64: allowZIP64, forceZIP64: forceZIP64)
            try body(writer)
            try writer.finish()
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}
