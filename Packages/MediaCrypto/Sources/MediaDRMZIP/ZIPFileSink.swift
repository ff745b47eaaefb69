import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the archive to a file descriptor as it is produced. Offsets given to `patch` are
/// relative to the descriptor's position when the sink was made, so an archive can follow other
/// bytes in the same file.
public final class ZIPFileSink: ZIPSink {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let baseOffset: off_t
    public let supportsPatching: Bool

    /// Creates (or truncates) the file at `path`, mode 0644.
    public convenience init(path: String) throws(ZIPError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ZIPError(.io, "the output file could not be created") }
        self.init(descriptor: fd, owns: true)
    }

    /// Writes through an open handle; the handle stays open and owned by the caller. A pipe or
    /// socket works too (no patching then).
    public convenience init(fileHandle: FileHandle) {
        self.init(descriptor: fileHandle.fileDescriptor, owns: false)
    }

    init(descriptor: Int32, owns: Bool) {
        self.fd = descriptor
        self.ownsDescriptor = owns
        var info = stat()
        let isRegular = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let position = lseek(descriptor, 0, SEEK_CUR)
        self.baseOffset = position >= 0 ? position : 0
        self.supportsPatching = isRegular && position >= 0
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = posixWrite(fd, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw ZIPError(.io, "writing the archive failed")
            }
            done += n
        }
    }

    public func patch(at offset: UInt64, with bytes: UnsafeRawBufferPointer) throws {
        guard supportsPatching else { throw ZIPError(.invalidArgument, "this sink cannot seek back") }
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, base + done, bytes.count - done, baseOffset + off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ZIPError(.io, "patching a local header failed")
            }
            done += n
        }
    }

    /// Flushes the file to stable storage.
    public func synchronize() throws(ZIPError) {
        guard fsync(fd) == 0 else { throw ZIPError(.io, "fsync of the archive failed") }
    }
}

/// write(2), named apart from `ZIPFileSink.write` so member lookup does not shadow it.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
