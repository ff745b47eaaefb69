#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that arrive in order and cannot be re-read: a pipe, a socket, standard input. The
/// fragmented-MP4 reader (`FragmentedMP4Reader`) takes its input through this, so it never
/// needs to seek and never holds more than the box it is reading.
public protocol MP4ByteStream: AnyObject {
    /// Up to `maximumCount` bytes (at least one), or none at the end of the stream.
    func read(maximumCount: Int) throws(MP4Error) -> [UInt8]
}

/// A stream over bytes held in memory, handed out in chunks of at most `chunkSize` bytes (tests
/// and the fuzz target read the same input whole and in small chunks, which must agree).
public final class MP4MemoryStream: MP4ByteStream {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private var position = 0

    public init(_ bytes: [UInt8], chunkSize: Int = Int.max) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public func read(maximumCount: Int) throws(MP4Error) -> [UInt8] {
        let count = min(maximumCount, chunkSize, bytes.count - position)
        guard count > 0 else { return [] }
        defer { position += count }
        return Array(bytes[position ..< position + count])
    }
}

/// A stream over a file descriptor (standard input, a pipe) read with `read(2)`. The
/// descriptor is not closed: its owner (the process, for standard input) does that.
public final class MP4FileDescriptorStream: MP4ByteStream {
    private let descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public func read(maximumCount: Int) throws(MP4Error) -> [UInt8] {
        guard maximumCount > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: maximumCount)
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Glibc)
                Glibc.read(descriptor, raw.baseAddress, maximumCount)
                #else
                Darwin.read(descriptor, raw.baseAddress, maximumCount)
                #endif
            }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw MP4Error(.io, "reading the input stream failed") }
            buffer.removeLast(maximumCount - n)
            return buffer
        }
    }
}
