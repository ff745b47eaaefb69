import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file so that readers see either nothing or the complete result: bytes go to a
/// hidden temporary file in the destination's directory (same filesystem, so the final rename
/// is atomic), which is fsynced and then renamed over the destination. Anything short of
/// `commit()` (an error, an early return) removes the temporary file, so a failed run never
/// leaves a half-written output behind.
public final class AtomicFileWriter {
    public let destination: String
    public let temporaryPath: String
    private var fd: Int32
    private var finished = false

    /// Opens a fresh temporary file next to `destination`. The final file gets `mode` less the
    /// umask: by default the usual permissions for a new file (0666 less the umask); 0600 for a
    /// private one, which is never readable by others, not even before the rename.
    public init(destination: String, mode: mode_t = 0o666) throws(ToolFailure) {
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        let base = url.lastPathComponent
        // A rename over a device, pipe or directory would replace it (as root, /dev/null with a
        // regular file): only a missing destination or a regular file is ever replaced.
        var existing = stat()
        if stat(destination, &existing) == 0, existing.st_mode & S_IFMT != S_IFREG {
            throw ToolFailure("cannot write output '\(destination)': it exists and is not a regular file")
        }
        var lastError: Int32 = 0
        for _ in 0..<8 {
            let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
            let candidate = (directory as NSString).appendingPathComponent(".\(base).tmp-\(suffix)")
            let opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if opened >= 0 {
                fd = opened
                temporaryPath = candidate
                return
            }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw ToolFailure("cannot write output '\(destination)': \(systemErrorText(lastError))")
    }

    deinit {
        if !finished { discard() }
    }

    /// A handle on the temporary file for writers that stream into a `FileHandle`. It does not
    /// own the descriptor; the writer closes it.
    public var fileHandle: FileHandle {
        FileHandle(fileDescriptor: fd, closeOnDealloc: false)
    }

    /// The open descriptor of the temporary file.
    public var fileDescriptor: Int32 { fd }

    public func write(_ bytes: some DataProtocol) throws(ToolFailure) {
        guard !finished else { throw ToolFailure("output '\(destination)' is already closed") }
        for region in bytes.regions {
            let failure: Int32? = region.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
                guard var pointer = buffer.baseAddress else { return nil }
                var left = buffer.count
                while left > 0 {
                    let written = systemWriteFile(fd, pointer, left)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    left -= written
                    pointer += written
                }
                return nil
            }
            if let failure {
                throw ToolFailure("cannot write output '\(destination)': \(systemErrorText(failure))")
            }
        }
    }

    /// Flushes the bytes to disk and moves the file into place. After this the writer is done.
    public func commit() throws(ToolFailure) {
        guard !finished else { throw ToolFailure("output '\(destination)' is already closed") }
        guard fsync(fd) == 0 else {
            let code = errno
            discard()
            throw ToolFailure("cannot write output '\(destination)': \(systemErrorText(code))")
        }
        close(fd)
        fd = -1
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            discard()
            throw ToolFailure("cannot write output '\(destination)': \(systemErrorText(code))")
        }
        finished = true
        // The rename is durable only once the directory entry is on disk too.
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let directoryFD = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Drops the temporary file; the destination is left as it was.
    public func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !finished {
            unlink(temporaryPath)
            finished = true
        }
    }

    /// Runs `body` with a writer for `destination`, commits when it returns and discards the
    /// temporary file when it throws.
    public static func produce<T>(_ destination: String, _ body: (AtomicFileWriter) throws -> T) throws -> T {
        let writer = try AtomicFileWriter(destination: destination)
        do {
            let result = try body(writer)
            try writer.commit()
            return result
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Writes `data` to `destination` atomically, created with `mode` (less the umask).
    public static func write(_ data: some DataProtocol, to destination: String, mode: mode_t = 0o666) throws(ToolFailure) {
        let writer = try AtomicFileWriter(destination: destination, mode: mode)
        do {
            try writer.write(data)
            try writer.commit()
        } catch {
            writer.discard()
            throw error
        }
    }
}

private func systemWriteFile(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #else
    return Darwin.write(fd, pointer, count)
    #endif
}
