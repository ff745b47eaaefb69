/// Where a `ZIPWriter` puts the archive, in order, as entries are produced.
public protocol ZIPSink: AnyObject {
    /// Appends bytes. Errors that are not `ZIPError` reach the caller as `ZIPError(.io)`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Whether `patch` works. A seekable sink lets the writer stream an entry of unknown size or
    /// CRC without a data descriptor: it writes the local header and fixes it after the data.
    var supportsPatching: Bool { get }
    /// Overwrites bytes already written; `offset` counts from the first byte this sink received.
    func patch(at offset: UInt64, with bytes: UnsafeRawBufferPointer) throws
}
