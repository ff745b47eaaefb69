import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random-access bytes (a file, memory; later an HTTP range reader).
public protocol MP4ByteSource: Sendable {
    var size: UInt64 { get }
    /// Exactly `count` bytes at `offset`, or an error.
    func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8]
}

/// Bytes held in memory.
public struct MP4MemorySource: MP4ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: UInt64 { UInt64(bytes.count) }

    public func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw .truncated(nil) }
        let start = Int(offset)
        return Array(bytes[start ..< start + count])
    }
}

/// A file read with `pread`, so reads at any offset need no shared position. The descriptor is
/// opened read-only in `init`, never changes, and is closed in `deinit`.
public final class MP4FileSource: MP4ByteSource, @unchecked Sendable {
    private let descriptor: Int32
    public let size: UInt64

    public init(path: String) throws(MP4Error) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw MP4Error(.io, "cannot open the input file") }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 0 else {
            close(fd)
            throw MP4Error(.io, "cannot stat the input file")
        }
        descriptor = fd
        size = UInt64(info.st_size)
    }

    deinit { close(descriptor) }

    public func read(offset: UInt64, count: Int) throws(MP4Error) -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw .truncated(nil) }
        guard count > 0 else { return [] }
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = result.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(descriptor, base + done, count - done, off_t(offset) + off_t(done))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw n == 0 ? .truncated(nil) : MP4Error(.io, "read failed") }
            done += n
        }
        return result
    }
}
