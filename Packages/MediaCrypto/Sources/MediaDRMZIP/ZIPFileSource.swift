import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive in a regular file, read with pread(2) so concurrent reads need no shared position.
/// The descriptor is opened at init and closed in deinit; nothing mutates after init.
public final class ZIPFileSource: ZIPRandomAccessSource, @unchecked Sendable {
    private let fd: Int32
    public let size: UInt64

    public init(path: String) throws(ZIPError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ZIPError(.io, "the archive file could not be opened") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ZIPError(.io, "the archive path is not a regular file")
        }
        self.fd = fd
        self.size = UInt64(info.st_size)
    }

    public convenience init(url: URL) throws(ZIPError) {
        try self.init(path: url.path)
    }

    deinit { close(fd) }

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw ZIPError(.truncated, "read past the end of the archive file")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        let failed: Bool = buffer.withUnsafeMutableBytes { raw -> Bool in
            while done < count {
                guard let base = raw.baseAddress else { return true }
                let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                if n == 0 { return true }
                done += n
            }
            return false
        }
        if failed { throw ZIPError(.io, "reading the archive file failed or ended early") }
        return buffer
    }
}
