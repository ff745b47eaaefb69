/// Walks the top-level boxes of a random-access source reading headers only, so a reader can find
/// `moov` and `mdat` without loading `mdat`.
public struct BoxIterator {
    public let source: any MP4ByteSource
    public private(set) var offset: UInt64
    private let end: UInt64

    /// Boxes in `range` of `source` (the whole source by default).
    public init(source: any MP4ByteSource, range: Range<UInt64>? = nil) {
        self.source = source
        let r = range ?? 0 ..< source.size
        offset = r.lowerBound
        end = min(r.upperBound, source.size)
    }

    /// The next header, or nil at the end. A header whose size runs past the end is an error.
    public mutating func next() throws(MP4Error) -> BoxHeader? {
        guard offset < end else { return nil }
        let available = end - offset
        // Read 8 bytes, and 8 more only for a largesize, so nothing past the header is touched.
        var prefix = try source.read(offset: offset, count: Int(min(available, 8)))
        if prefix.count == 8, prefix[0 ..< 4] == [0, 0, 0, 1], available >= 16 {
            prefix += try source.read(offset: offset + 8, count: 8)
        }
        let header = try BoxHeader.parse(prefix, at: 0, available: available, fileOffset: offset)
        offset += header.size
        return header
    }

    /// Every header from the current position on.
    public mutating func all() throws(MP4Error) -> [BoxHeader] {
        var headers: [BoxHeader] = []
        while let header = try next() { headers.append(header) }
        return headers
    }

    /// Reads and parses the box `header` describes. An `mdat` is returned without reading its
    /// payload; other boxes larger than `maximumSize` are refused.
    public func readBox(_ header: BoxHeader, options: DecodingOptions = DecodingOptions(),
                        maximumSize: UInt64 = 64 << 20) throws(MP4Error) -> any MP4Box {
        if header.type == "mdat" {
            var box = MediaDataBox(payloadSize: header.payloadSize)
            box.payloadOffset = header.payloadOffset
            return box
        }
        guard header.size <= maximumSize else { throw .invalidSize(header.type, "box larger than the reading limit") }
        let bytes = try source.read(offset: header.offset, count: Int(header.size))
        // A size-0 box resolves against these bytes, which end where the file does.
        var coder = BoxCoder(reading: bytes, baseOffset: header.offset, options: options)
        return try coder.readBox()
    }

    /// Reads the box `header` describes as type `T`.
    public func readBox<T: MP4Box>(_ header: BoxHeader, as _: T.Type, options: DecodingOptions = DecodingOptions(),
                                   maximumSize: UInt64 = 64 << 20) throws(MP4Error) -> T {
        let box = try readBox(header, options: options, maximumSize: maximumSize)
        guard let typed = box as? T else { throw .invalidField(header.type, "type", "unexpected box type") }
        return typed
    }
}
