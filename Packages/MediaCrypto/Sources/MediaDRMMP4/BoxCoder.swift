/// What a reader needs to know that the bytes themselves do not say.
public struct DecodingOptions: Sendable, Equatable {
    /// Per-sample IV size of `senc` boxes by `track_ID` (from each track's `tenc`).
    public var perSampleIVSizes: [UInt32: Int]
    /// Per-sample IV size for `senc` boxes of tracks not in `perSampleIVSizes`. When neither says,
    /// the reader tries 0, 8 and 16 and accepts the one size that fills the box exactly.
    public var defaultPerSampleIVSize: Int?
    /// Entries that occupy no bytes (a `trun` with no per-sample fields) cannot be bounded by the
    /// bytes left, so their count is bounded by this instead.
    public var maximumEmptyEntryCount: Int
    /// How deep boxes may nest. Real files need about 10; the limit keeps hostile nesting from
    /// exhausting the stack.
    public var maximumDepth: Int

    public init(perSampleIVSizes: [UInt32: Int] = [:], defaultPerSampleIVSize: Int? = nil,
                maximumEmptyEntryCount: Int = 1 << 20, maximumDepth: Int = 24) {
        self.perSampleIVSizes = perSampleIVSizes
        self.defaultPerSampleIVSize = defaultPerSampleIVSize
        self.maximumEmptyEntryCount = maximumEmptyEntryCount
        self.maximumDepth = maximumDepth
    }
}

/// The one description of a box's fields, run in either direction: when reading it pops checked
/// values from a byte range into the fields; when writing it appends the fields' values. A box
/// describes itself once (`MP4Box.describe`) and gets both a parser and a serialiser that cannot
/// disagree about layout.
public struct BoxCoder {
    public enum Mode: Sendable { case reading, writing }

    public let mode: Mode
    public var isReading: Bool { mode == .reading }
    public var isWriting: Bool { mode == .writing }
    public let options: DecodingOptions

    private let input: [UInt8]
    private var position: Int
    private var limit: Int
    private var depth = 0
    private let baseOffset: UInt64
    /// The serialised bytes (writing).
    public private(set) var output: [UInt8] = []
    /// The box whose fields are being described; named in errors.
    public private(set) var currentBox: FourCC?
    private var externalPayload: UInt64 = 0
    /// The `track_ID` of the enclosing `traf` (from its `tfhd`) or `trak` (from its `tkhd`), so a
    /// `senc` can find its IV size in `DecodingOptions.perSampleIVSizes`.
    var contextTrackID: UInt32?

    /// A reader over `bytes`; `baseOffset` is where `bytes` start in the file, so offsets reported
    /// by `mdat` are file offsets.
    public init(reading bytes: [UInt8], baseOffset: UInt64 = 0, options: DecodingOptions = DecodingOptions()) {
        mode = .reading
        input = bytes
        position = 0
        limit = bytes.count
        self.baseOffset = baseOffset
        self.options = options
    }

    public init(writingWith options: DecodingOptions = DecodingOptions()) {
        mode = .writing
        input = []
        position = 0
        limit = 0
        baseOffset = 0
        self.options = options
    }

    /// Bytes left in the current box (reading); 0 when writing.
    public var bytesLeft: Int { isReading ? limit - position : 0 }

    /// The file offset of the next byte to read.
    public var absoluteOffset: UInt64 { baseOffset + UInt64(position) }

    // MARK: Errors

    public func invalidField(_ field: String, _ why: String = "value not allowed") -> MP4Error {
        .invalidField(currentBox, field, why)
    }

    // MARK: Raw reads and writes

    private mutating func take(_ count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard count >= 0, count <= limit - position else { throw .truncated(currentBox) }
        let slice = input[position ..< position + count]
        position += count
        return slice
    }

    private mutating func readUInt(_ width: Int) throws(MP4Error) -> UInt64 {
        var value: UInt64 = 0
        for byte in try take(width) { value = value << 8 | UInt64(byte) }
        return value
    }

    private mutating func appendUInt(_ value: UInt64, _ width: Int) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    private mutating func unsigned(_ value: inout UInt64, _ width: Int) throws(MP4Error) {
        if isReading { value = try readUInt(width) } else { appendUInt(value, width) }
    }

    // MARK: Fields

    public mutating func uint8(_ v: inout UInt8) throws(MP4Error) {
        var w = UInt64(v); try unsigned(&w, 1); v = UInt8(truncatingIfNeeded: w)
    }

    public mutating func uint16(_ v: inout UInt16) throws(MP4Error) {
        var w = UInt64(v); try unsigned(&w, 2); v = UInt16(truncatingIfNeeded: w)
    }

    /// A 24-bit field; writing refuses values that do not fit.
    public mutating func uint24(_ v: inout UInt32, field: String) throws(MP4Error) {
        if isWriting, v > 0xFF_FFFF { throw invalidField(field, "does not fit in 24 bits") }
        var w = UInt64(v); try unsigned(&w, 3); v = UInt32(truncatingIfNeeded: w)
    }

    public mutating func uint32(_ v: inout UInt32) throws(MP4Error) {
        var w = UInt64(v); try unsigned(&w, 4); v = UInt32(truncatingIfNeeded: w)
    }

    public mutating func uint64(_ v: inout UInt64) throws(MP4Error) {
        try unsigned(&v, 8)
    }

    public mutating func int16(_ v: inout Int16) throws(MP4Error) {
        var w = UInt64(UInt16(bitPattern: v)); try unsigned(&w, 2); v = Int16(bitPattern: UInt16(truncatingIfNeeded: w))
    }

    public mutating func int32(_ v: inout Int32) throws(MP4Error) {
        var w = UInt64(UInt32(bitPattern: v)); try unsigned(&w, 4); v = Int32(bitPattern: UInt32(truncatingIfNeeded: w))
    }

    public mutating func int64(_ v: inout Int64) throws(MP4Error) {
        var w = UInt64(bitPattern: v); try unsigned(&w, 8); v = Int64(bitPattern: w)
    }

    public mutating func fourCC(_ v: inout FourCC) throws(MP4Error) {
        try uint32(&v.rawValue)
    }

    /// An unsigned field that is 64 bits wide in version 1 and 32 bits in version 0.
    public mutating func uint(_ v: inout UInt64, wide: Bool, field: String) throws(MP4Error) {
        if isWriting, !wide, v > UInt64(UInt32.max) { throw invalidField(field, "does not fit in 32 bits") }
        try unsigned(&v, wide ? 8 : 4)
    }

    /// A signed field that is 64 bits wide in version 1 and 32 bits in version 0.
    public mutating func int(_ v: inout Int64, wide: Bool, field: String) throws(MP4Error) {
        if wide { try int64(&v); return }
        guard let narrow = Int32(exactly: v) else { throw invalidField(field, "does not fit in 32 bits") }
        var n = narrow
        try int32(&n)
        v = Int64(n)
    }

    /// Exactly `count` bytes; writing refuses a value of another length.
    public mutating func bytes(_ v: inout [UInt8], count: Int, field: String) throws(MP4Error) {
        if isReading {
            v = Array(try take(count))
        } else {
            guard v.count == count else { throw invalidField(field, "must be \(count) bytes") }
            output.append(contentsOf: v)
        }
    }

    /// Everything up to the end of the current box or descriptor.
    public mutating func remainingBytes(_ v: inout [UInt8]) throws(MP4Error) {
        if isReading { v = Array(try take(limit - position)) } else { output.append(contentsOf: v) }
    }

    /// Reserved bits: skipped when reading (writers in the wild do not all zero them), zero when writing.
    public mutating func reserved(_ count: Int) throws(MP4Error) {
        if isReading { _ = try take(count) } else { output.append(contentsOf: repeatElement(0, count: count)) }
    }

    /// A field whose value the specification fixes: skipped when reading, `value` when writing.
    public mutating func constant(_ value: UInt64, width: Int) throws(MP4Error) {
        if isReading { _ = try take(width) } else { appendUInt(value, width) }
    }

    /// The next byte without consuming it (reading); nil at the end of the current range.
    public func peekUInt8() -> UInt8? {
        guard isReading, position < limit else { return nil }
        return input[position]
    }

    /// The box type of a box struct that serves several types (`ftyp`/`styp`, `avc1`/`encv`):
    /// reading takes it from the header; writing leaves it (the header is already written).
    public mutating func headerType(_ type: inout FourCC) {
        if isReading, let current = currentBox { type = current }
    }

    /// The FullBox version and flags. Reading refuses versions outside `supported`.
    public mutating func fullBoxHeader(version: inout UInt8, flags: inout UInt32,
                                       supported: ClosedRange<UInt8>) throws(MP4Error) {
        if isWriting, !supported.contains(version) { throw .unsupportedVersion(currentBox, version) }
        try uint8(&version)
        try uint24(&flags, field: "flags")
        if isReading, !supported.contains(version) { throw .unsupportedVersion(currentBox, version) }
    }

    // MARK: Counted entries

    /// A count field followed (now or later) by `count` entries of at least `minimumSize` bytes each.
    /// Reading refuses a count the bytes left cannot hold, before anything is allocated; writing
    /// refuses a count wider than the field.
    public mutating func count(_ n: inout Int, width: Int, minimumSize: Int, field: String) throws(MP4Error) {
        if isReading {
            let raw = try readUInt(width)
            guard let value = Int(exactly: raw) else { throw .countTooLarge(currentBox, field) }
            try checkCount(value, minimumSize: minimumSize, field: field)
            n = value
        } else {
            let maximum: UInt64 = width >= 8 ? UInt64.max : (1 << UInt64(width * 8)) - 1
            guard n >= 0, UInt64(n) <= maximum else { throw invalidField(field, "count does not fit its field") }
            appendUInt(UInt64(n), width)
        }
    }

    /// Refuses `count` entries of `minimumSize` bytes when the bytes left cannot hold them.
    public func checkCount(_ count: Int, minimumSize: Int, field: String) throws(MP4Error) {
        guard isReading else { return }
        guard count >= 0 else { throw .countTooLarge(currentBox, field) }
        if minimumSize == 0 {
            guard count <= options.maximumEmptyEntryCount else { throw .countTooLarge(currentBox, field) }
        } else {
            guard count <= (limit - position) / minimumSize else { throw .countTooLarge(currentBox, field) }
        }
    }

    /// `count` entries, each described by `body`. Reading checks the count against the bytes left
    /// first; writing describes every element of `array` (its count was written by the caller).
    public mutating func elements<E>(_ array: inout [E], count: Int, minimumSize: Int, field: String,
                                     make: () -> E,
                                     _ body: (inout BoxCoder, inout E) throws(MP4Error) -> Void) throws(MP4Error) {
        if isReading {
            try checkCount(count, minimumSize: minimumSize, field: field)
            var result: [E] = []
            result.reserveCapacity(count)
            for _ in 0 ..< count {
                var element = make()
                try body(&self, &element)
                result.append(element)
            }
            array = result
        } else {
            guard array.count == count else { throw invalidField(field, "count differs from the entries") }
            for var element in array { try body(&self, &element) }
        }
    }

    /// A 32-bit entry count followed by the entries.
    public mutating func entries<E>(_ array: inout [E], minimumSize: Int, field: String = "entry_count",
                                    make: () -> E,
                                    _ body: (inout BoxCoder, inout E) throws(MP4Error) -> Void) throws(MP4Error) {
        var n = array.count
        try count(&n, width: 4, minimumSize: minimumSize, field: field)
        try elements(&array, count: n, minimumSize: minimumSize, field: field, make: make, body)
    }

    // MARK: Child boxes

    /// Child boxes up to the end of the current box.
    public mutating func children(_ list: inout BoxList) throws(MP4Error) {
        if isReading {
            var boxes: [any MP4Box] = []
            while position < limit { boxes.append(try readBox()) }
            list = BoxList(boxes)
        } else {
            for box in list.boxes { try writeBox(box) }
        }
    }

    /// Exactly `count` child boxes (`stsd`, `dref`); their count was described by the caller.
    public mutating func boxes(_ list: inout BoxList, count: Int, field: String) throws(MP4Error) {
        if isReading {
            try checkCount(count, minimumSize: 8, field: field)
            var boxes: [any MP4Box] = []
            boxes.reserveCapacity(count)
            for _ in 0 ..< count { boxes.append(try readBox()) }
            list = BoxList(boxes)
        } else {
            guard list.count == count else { throw invalidField(field, "count differs from the boxes") }
            for box in list.boxes { try writeBox(box) }
        }
    }

    /// Checks that each group of alternative types occurs exactly once among `list`.
    public func require(_ groups: [[FourCC]], in list: BoxList) throws(MP4Error) {
        for group in groups {
            let n = list.boxes.reduce(0) { group.contains($1.boxType) ? $0 + 1 : $0 }
            guard n == 1 else {
                throw .missingBox(currentBox, group.map(\.description).joined(separator: "' or '"))
            }
        }
    }

    /// Reads one box at the current position with its registered type (unknown types are kept
    /// byte for byte).
    public mutating func readBox() throws(MP4Error) -> any MP4Box {
        let start = position
        let header: BoxHeader
        do {
            header = try BoxHeader.parse(input, at: start, available: limit - start, fileOffset: absoluteOffset)
        } catch {
            // A child that overruns its parent is a size error; running off the input is truncation.
            if depth > 0 { throw .invalidSize(currentBox, "child box does not fit its parent") }
            throw error
        }
        guard let size = Int(exactly: header.size) else { throw .invalidSize(header.type, "box too large") }
        guard depth < options.maximumDepth else {
            throw MP4Error(.tooDeep, "boxes nest deeper than \(options.maximumDepth) levels", box: header.type)
        }
        let savedLimit = limit, savedBox = currentBox, savedTrack = contextTrackID
        limit = start + size
        position = start + header.headerSize
        currentBox = header.type
        depth += 1
        let box = try decode(boxMetatype(for: header.type))
        guard position == limit else { throw .invalidSize(header.type, "fields do not fill the box") }
        depth -= 1
        limit = savedLimit
        currentBox = savedBox
        // The track named by a tfhd or tkhd stays known only inside its traf or trak.
        if header.type == "traf" || header.type == "trak" { contextTrackID = savedTrack }
        return box
    }

    private mutating func decode<B: MP4Box>(_: B.Type) throws(MP4Error) -> B {
        var box = B()
        try box.describe(&self)
        return box
    }

    /// Serialises one box: header, fields, then the size recomputed (64-bit `largesize` only
    /// when the box needs it).
    public mutating func writeBox(_ box: any MP4Box) throws(MP4Error) {
        let type = box.boxType
        let start = output.count
        appendUInt(0, 4)
        appendUInt(UInt64(type.rawValue), 4)
        let savedBox = currentBox, savedExternal = externalPayload
        currentBox = type
        externalPayload = 0
        var copy = box
        try copy.describe(&self)
        let external = externalPayload
        let (total, overflow) = UInt64(output.count - start).addingReportingOverflow(external)
        guard !overflow, total <= UInt64.max - 8 else { throw .invalidSize(type, "box too large") }
        if total <= UInt64(UInt32.max) {
            patch(UInt64(total), width: 4, at: start)
        } else {
            patch(1, width: 4, at: start)
            var large: [UInt8] = []
            var shift = 56
            while shift >= 0 { large.append(UInt8(truncatingIfNeeded: (total + 8) >> UInt64(shift))); shift -= 8 }
            output.insert(contentsOf: large, at: start + 8)
        }
        currentBox = savedBox
        externalPayload = savedExternal + external
    }

    private mutating func patch(_ value: UInt64, width: Int, at index: Int) {
        for i in 0 ..< width {
            output[index + i] = UInt8(truncatingIfNeeded: value >> UInt64((width - 1 - i) * 8))
        }
    }

    /// A payload that is not held in memory (`mdat`): reading skips to the end of the box and
    /// reports where the payload is; writing counts `size` in the box size without writing it.
    public mutating func externalPayload(size: inout UInt64, offset: inout UInt64?) throws(MP4Error) {
        if isReading {
            offset = absoluteOffset
            size = UInt64(limit - position)
            position = limit
        } else {
            externalPayload += size
        }
    }

    // MARK: MPEG-4 descriptors (ISO/IEC 14496-1)

    /// A descriptor: tag, a length in 1 to 4 bytes of 7 bits each, then the body. `lengthFieldSize`
    /// records the form read; writing keeps it unless the body needs more bytes.
    public mutating func descriptor(tag: UInt8, lengthFieldSize: inout Int,
                                    _ body: (inout BoxCoder) throws(MP4Error) -> Void) throws(MP4Error) {
        if isReading {
            let actualTag = try readUInt(1)
            guard actualTag == UInt64(tag) else { throw invalidField("descriptor tag", "expected tag \(tag)") }
            var length = 0
            var used = 0
            while true {
                guard used < 4 else { throw invalidField("descriptor length", "longer than 4 bytes") }
                let byte = try readUInt(1)
                used += 1
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            lengthFieldSize = used
            guard length <= limit - position else {
                throw depth > 0 ? .invalidSize(currentBox, "descriptor overruns its parent") : .truncated(currentBox)
            }
            let savedLimit = limit
            limit = position + length
            try body(&self)
            guard position == limit else { throw .invalidSize(currentBox, "descriptor fields do not fill it") }
            limit = savedLimit
        } else {
            guard (1 ... 4).contains(lengthFieldSize) else {
                throw invalidField("descriptor length", "length field must be 1 to 4 bytes")
            }
            output.append(tag)
            let lengthStart = output.count
            output.append(contentsOf: repeatElement(0, count: lengthFieldSize))
            try body(&self)
            let length = output.count - lengthStart - lengthFieldSize
            let needed = length < 1 << 7 ? 1 : length < 1 << 14 ? 2 : length < 1 << 21 ? 3 : length < 1 << 28 ? 4 : 5
            guard needed <= 4 else { throw invalidField("descriptor length", "body too large") }
            let size = max(needed, lengthFieldSize)
            if size > lengthFieldSize {
                output.insert(contentsOf: repeatElement(0, count: size - lengthFieldSize), at: lengthStart)
            }
            for i in 0 ..< size {
                let shift = (size - 1 - i) * 7
                let more: UInt8 = i < size - 1 ? 0x80 : 0
                output[lengthStart + i] = UInt8((length >> shift) & 0x7F) | more
            }
        }
    }

    // MARK: Sub-ranges

    /// Runs `body` over the next `length` bytes only (reading) and requires it to consume them.
    mutating func range(length: Int, _ body: (inout BoxCoder) throws(MP4Error) -> Void) throws(MP4Error) {
        guard isReading else { try body(&self); return }
        guard length >= 0, length <= limit - position else { throw .truncated(currentBox) }
        let savedLimit = limit
        limit = position + length
        try body(&self)
        guard position == limit else { throw .invalidSize(currentBox, "fields do not fill their range") }
        limit = savedLimit
    }
}
