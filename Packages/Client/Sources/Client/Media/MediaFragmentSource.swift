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

    static func readSegment(_ path: String) throws(MediaError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.io, "cannot open segment '\(path)'")
        }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.readToEnd()
        } catch {
            throw MediaError(.io, "cannot read segment '\(path)'")
        }
        guard let data, data.count <= FragmentReader.maximumSegmentSize else {
            throw MediaError(data == nil ? .truncated : .limitExceeded, "segment '\(path)' is empty or too large")
        }
        return [UInt8](data)
    }
}
