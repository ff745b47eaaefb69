import Foundation

/// The fragments of one track, one media segment at a time, in decode order.
public protocol MediaFragmentSource: AnyObject {
    /// The next segment's fragments, or nil after the last segment.
    func nextFragments() throws(MediaError) -> [MediaFragment]?
}

/// Decrypts segments as they are pulled: memory holds one segment of the track at a time.
public final class DecryptingSegmentSource: MediaFragmentSource {
    public let decryptor: FragmentDecryptor
    private let nextSegment: () throws -> [UInt8]?

    /// `nextSegment` returns the next encrypted segment's bytes, or nil at the end; an error it
    /// throws that is not a `MediaError` becomes `.io`.
    public init(decryptor: FragmentDecryptor, nextSegment: @escaping () throws -> [UInt8]?) {
        self.decryptor = decryptor
        self.nextSegment = nextSegment
    }

    /// Segment files read one by one, in the order given.
    public convenience init(decryptor: FragmentDecryptor, segmentPaths: [String]) {
        var remaining = segmentPaths[...]
        self.init(decryptor: decryptor) {
            guard let path = remaining.popFirst() else { return nil }
            return try DecryptingSegmentSource.readSegment(path)
        }
    }

    public func nextFragments() throws(MediaError) -> [MediaFragment]? {
        let bytes: [UInt8]?
        do {
            bytes = try nextSegment()
        } catch {
            if let media = error as? MediaError { throw media }
            throw MediaError(.io, "cannot read the next segment")
        }
        guard let bytes else { return nil }
        return try decryptor.decryptSegment(bytes)
    }

    /// The segment file's bytes, read with read(2) into an array sized from fstat: no Data and
    /// no Data-to-Array copy of a multi-megabyte segment.
    static func readSegment(_ path: String) throws(MediaError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MediaError(.io, "cannot open segment '\(path)'") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw MediaError(.io, "cannot read segment '\(path)'") }
        let limit = FragmentReader.maximumSegmentSize
        let tooLarge = MediaError(.limitExceeded, "segment '\(path)' is empty or too large")
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > limit { throw tooLarge }
        var want = (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) + 1 : 1 << 16
        var bytes: [UInt8] = []
        var filled = 0
        while true {
            if filled == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: max(want - bytes.count, 1 << 12)))
                want = bytes.count * 2
            }
            let count = bytes.withUnsafeMutableBytes { buffer in
                Foundation.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw MediaError(.io, "cannot read segment '\(path)'")
            }
            if count == 0 { break }
            filled += count
            guard filled <= limit else { throw tooLarge }
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }
}
