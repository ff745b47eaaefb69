/// Random-access bytes of an archive: a file, memory, or (in another package) an HTTP Range
/// source. The reader never asks for bytes past `size`, and treats a short answer as an error.
public protocol ZIPRandomAccessSource: Sendable {
    /// Total length of the archive in bytes.
    var size: UInt64 { get }
    /// Exactly `count` bytes starting at `offset`. Errors that are not `ZIPError` reach the
    /// caller of the reader as `ZIPError(.io)` with the original in `underlying`.
    func read(offset: UInt64, count: Int) throws -> [UInt8]
    /// A hint that `count` bytes from `offset` are about to be read; see the default below.
    func willRead(offset: UInt64, count: Int)
}

extension ZIPRandomAccessSource {
    /// A hint that `count` bytes from `offset` are about to be read (an entry's header and data);
    /// a remote source may fetch them in one request. The default does nothing.
    public func willRead(offset: UInt64, count: Int) {}
}
