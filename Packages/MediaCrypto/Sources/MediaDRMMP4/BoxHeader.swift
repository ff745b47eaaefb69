/// The header of a box: where it is, how big, and its type; enough to walk a file without
/// reading payloads.
public struct BoxHeader: Sendable, Equatable {
    public var type: FourCC
    /// File offset of the first header byte.
    public var offset: UInt64
    /// Total size including the header (size 0 "to the end" is resolved against the bytes available).
    public var size: UInt64
    /// 8, or 16 with a 64-bit `largesize`.
    public var headerSize: Int

    public var payloadOffset: UInt64 { offset + UInt64(headerSize) }
    public var payloadSize: UInt64 { size - UInt64(headerSize) }
    public var endOffset: UInt64 { offset + size }

    public init(type: FourCC, offset: UInt64, size: UInt64, headerSize: Int) {
        self.type = type
        self.offset = offset
        self.size = size
        self.headerSize = headerSize
    }

    /// Parses a header from `bytes[index...]` where `available` bytes remain for this box (the rest
    /// of the parent or file). The size is checked against `available`.
    static func parse(_ bytes: [UInt8], at index: Int, available: Int, fileOffset: UInt64) throws(MP4Error) -> BoxHeader {
        try parse(bytes, at: index, available: UInt64(max(available, 0)), fileOffset: fileOffset)
    }

    static func parse(_ bytes: [UInt8], at index: Int, available: UInt64, fileOffset: UInt64) throws(MP4Error) -> BoxHeader {
        func read(_ at: Int, _ width: Int) throws(MP4Error) -> UInt64 {
            guard at >= 0, width <= bytes.count - at, UInt64(at - index + width) <= available else { throw .truncated(nil) }
            var v: UInt64 = 0
            for i in at ..< at + width { v = v << 8 | UInt64(bytes[i]) }
            return v
        }
        let size32 = try read(index, 4)
        let type = FourCC(rawValue: UInt32(try read(index + 4, 4)))
        var headerSize = 8
        var size = size32
        if size32 == 1 {
            size = try read(index + 8, 8)
            headerSize = 16
        } else if size32 == 0 {
            size = available
        }
        guard size >= UInt64(headerSize) else { throw .invalidSize(type, "size smaller than the header") }
        guard size <= available else { throw .truncated(type) }
        return BoxHeader(type: type, offset: fileOffset, size: size, headerSize: headerSize)
    }
}
