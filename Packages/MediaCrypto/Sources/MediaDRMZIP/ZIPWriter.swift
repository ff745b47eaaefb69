import Foundation

/// Writes a ZIP archive to a sink as entries are produced; only the central directory records
/// (name, sizes, CRC, offset per entry) are kept in memory until `finish()`.
///
/// Streaming an entry (`beginEntry` / `write` / `endEntry`):
/// - A stored entry whose size and CRC-32 are both declared up front gets a complete local header
///   and works with any sink; the written bytes are checked against both declarations.
/// - Otherwise, on a sink that supports patching (memory, regular files), the local header is
///   written with zero CRC and sizes and patched in place after the data: no data descriptor.
/// - Otherwise, in the standard layout, general-purpose bit 3 is set and a data descriptor follows
///   the data. The exact layout refuses this case (`.invalidArgument`): there, declare the size and
///   CRC, or use a seekable sink.
/// When ZIP64 is allowed and a streamed entry's final size is not known to be small, its local
/// header carries a ZIP64 extra field so it may grow past 4 GiB.
public final class ZIPWriter {
    public enum Layout: Sendable {
        /// Ordinary archive; data descriptors and ZIP64 as needed and allowed.
        case standard
        /// The fps-v2 container (draft-arkavo-tdf-fairplay-01 §4): first local header at offset 0,
        /// entries back to back, no extra fields, no comments, no data descriptors, flags 0 (names
        /// must be ASCII), versions fixed at 2.0, central directory then the end record, never
        /// ZIP64, and the whole archive at most 4,294,967,295 bytes.
        case exact
    }

    public let layout: Layout
    public let allowZIP64: Bool
    public let forceZIP64: Bool
    /// Bytes handed to the sink so far.
    public private(set) var bytesWritten: UInt64 = 0
    public var entryCount: Int { records.count }

    private let sink: any ZIPSink
    private var records: [Record] = []
    private var names: Set<String> = []
    private var open: OpenEntry?
    private var state: State = .ready

    private enum State { case ready, inEntry, finished, failed }
    private enum Mode { case known, patch, descriptor }

    private struct Record {
        let name: [UInt8]
        let flags: UInt16
        let method: ZIPCompressionMethod
        let time: UInt16
        let date: UInt16
        let crc: UInt32
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        let offset: UInt64
        let zip64Local: Bool
    }

    private struct OpenEntry {
        let name: [UInt8]
        let flags: UInt16
        let method: ZIPCompressionMethod
        let time: UInt16
        let date: UInt16
        let headerOffset: UInt64
        let mode: Mode
        let zip64Local: Bool
        let declaredSize: UInt64?
        let declaredCRC: UInt32?
        let deflater: ZlibDeflater?
        var crc: UInt32 = 0
        var uncompressedSize: UInt64 = 0
        var compressedSize: UInt64 = 0
    }

    /// - Parameters:
    ///   - allowZIP64: write ZIP64 records where the archive needs them (entries or offsets at or
    ///     past 4 GiB, more than 65,535 entries); without it such archives fail with `.zip64Required`.
    ///   - forceZIP64: give every entry ZIP64 extra fields and write the ZIP64 end records even
    ///     when nothing needs them (implies `allowZIP64`; for interoperability tests).
    public init(sink: some ZIPSink, layout: Layout = .standard, allowZIP64: Bool = false, forceZIP64: Bool = false) throws(ZIPError) {
        if layout == .exact && (allowZIP64 || forceZIP64) {
            throw ZIPError(.invalidArgument, "the exact layout never uses ZIP64")
        }
        self.sink = sink
        self.layout = layout
        self.allowZIP64 = allowZIP64 || forceZIP64
        self.forceZIP64 = forceZIP64
    }

    // MARK: Whole entries

    /// Adds an entry whose bytes are all at hand.
    public func addEntry(name: String, data: some DataProtocol, method: ZIPCompressionMethod = .stored,
                         modificationDate: Date? = nil) throws(ZIPError) {
        try requireState(.ready)
        let (nameBytes, flags) = try prepare(name: name)
        if name.hasSuffix("/") && data.count != 0 {
            throw ZIPError(.invalidArgument, "a directory entry cannot hold data")
        }
        let (time, date) = DOSDateTime.encode(modificationDate)
        let crc = CRC32.checksum(data)
        let size = UInt64(data.count)
        switch method {
        case .stored:
            try guarded { () throws(ZIPError) in
                try writeWhole(name: nameBytes, flags: flags, method: .stored, time: time, date: date,
                               crc: crc, compressedSize: size, uncompressedSize: size) { () throws(ZIPError) in
                    try forEachRegion(data) { raw throws(ZIPError) in try emit(raw) }
                }
            }
        case .deflate:
            var compressed = [UInt8]()
            let deflater = try ZlibDeflater()
            try forEachRegion(data) { raw throws(ZIPError) in
                try deflater.compress(raw, finish: false) { out in compressed.append(contentsOf: out) }
            }
            try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { out in
                compressed.append(contentsOf: out)
            }
            try guarded { () throws(ZIPError) in
                try writeWhole(name: nameBytes, flags: flags, method: .deflate, time: time, date: date,
                               crc: crc, compressedSize: UInt64(compressed.count), uncompressedSize: size) { () throws(ZIPError) in
                    try compressed.withUnsafeBytes { raw in Result { () throws(ZIPError) in try emit(raw) } }.get()
                }
            }
        }
        names.insert(name)
    }

    private func writeWhole(name: [UInt8], flags: UInt16, method: ZIPCompressionMethod, time: UInt16, date: UInt16,
                            crc: UInt32, compressedSize: UInt64, uncompressedSize: UInt64,
                            payload: () throws(ZIPError) -> Void) throws(ZIPError) {
        let offset = bytesWritten
        try checkOffset(offset)
        let zip64Local = forceZIP64 || compressedSize >= ZIPFormat.max32 || uncompressedSize >= ZIPFormat.max32
        if zip64Local && !allowZIP64 {
            throw ZIPError(.zip64Required, "an entry of 4 GiB or more needs ZIP64, which was not allowed")
        }
        try emit(localHeader(name: name, flags: flags, method: method, time: time, date: date, crc: crc,
                             compressedSize: compressedSize, uncompressedSize: uncompressedSize, zip64: zip64Local))
        try payload()
        records.append(Record(name: name, flags: flags, method: method, time: time, date: date, crc: crc,
                              compressedSize: compressedSize, uncompressedSize: uncompressedSize,
                              offset: offset, zip64Local: zip64Local))
    }

    // MARK: Streamed entries

    /// Starts an entry whose bytes follow through `write(_:)`. `uncompressedSize` and `crc32`, when
    /// given, are checked against what is written (see the type's notes for what they enable).
    public func beginEntry(name: String, method: ZIPCompressionMethod = .stored, uncompressedSize: UInt64? = nil,
                           crc32: UInt32? = nil, modificationDate: Date? = nil) throws(ZIPError) {
        try requireState(.ready)
        var (nameBytes, flags) = try prepare(name: name)
        let (time, date) = DOSDateTime.encode(modificationDate)
        let known = method == .stored && uncompressedSize != nil && crc32 != nil
        let zip64Local: Bool
        let mode: Mode
        if let declared = uncompressedSize, declared >= ZIPFormat.max32, !allowZIP64 {
            throw ZIPError(.zip64Required, "an entry of 4 GiB or more needs ZIP64, which was not allowed")
        }
        if known, let declared = uncompressedSize {
            zip64Local = forceZIP64 || declared >= ZIPFormat.max32
            mode = .known
        } else {
            let mayGrow: Bool
            if let declared = uncompressedSize {
                let bound = method == .stored ? declared : (checkedSum(declared, declared >> 10, 64) ?? UInt64.max)
                mayGrow = bound >= ZIPFormat.max32
            } else {
                mayGrow = true
            }
            zip64Local = forceZIP64 || (allowZIP64 && mayGrow)
            if sink.supportsPatching {
                mode = .patch
            } else if layout == .exact {
                throw ZIPError(.invalidArgument, "the exact layout needs the size and CRC-32 declared, or a seekable sink")
            } else {
                mode = .descriptor
                flags |= ZIPFormat.flagDataDescriptor
            }
        }
        let deflater = method == .deflate ? try ZlibDeflater() : nil
        let offset = bytesWritten
        try checkOffset(offset)
        try guarded { () throws(ZIPError) in
            let header: [UInt8]
            if mode == .known, let size = uncompressedSize, let crc = crc32 {
                header = localHeader(name: nameBytes, flags: flags, method: method, time: time, date: date, crc: crc,
                                     compressedSize: size, uncompressedSize: size, zip64: zip64Local)
            } else {
                header = localHeader(name: nameBytes, flags: flags, method: method, time: time, date: date, crc: 0,
                                     compressedSize: 0, uncompressedSize: 0, zip64: zip64Local)
            }
            try emit(header)
        }
        open = OpenEntry(name: nameBytes, flags: flags, method: method, time: time, date: date, headerOffset: offset,
                         mode: mode, zip64Local: zip64Local, declaredSize: uncompressedSize, declaredCRC: crc32,
                         deflater: deflater)
        names.insert(name)
        state = .inEntry
    }

    /// Appends uncompressed bytes to the open entry.
    public func write(_ chunk: some DataProtocol) throws(ZIPError) {
        try requireState(.inEntry)
        try guarded { () throws(ZIPError) in
            guard var entry = open else { throw ZIPError(.invalidArgument, "no entry is open") }
            try forEachRegion(chunk) { raw throws(ZIPError) in
                entry.crc = CRC32.update(entry.crc, raw)
                entry.uncompressedSize += UInt64(raw.count)
                if let declared = entry.declaredSize, entry.uncompressedSize > declared {
                    throw ZIPError(.sizeMismatch, "more bytes were written than the entry's declared size")
                }
                if !entry.zip64Local && entry.uncompressedSize >= ZIPFormat.max32 {
                    throw ZIPError(.zip64Required, "a streamed entry reached 4 GiB without ZIP64")
                }
                if let deflater = entry.deflater {
                    var produced: UInt64 = 0
                    try deflater.compress(raw, finish: false) { out throws(ZIPError) in
                        try emit(out)
                        produced += UInt64(out.count)
                    }
                    entry.compressedSize += produced
                } else {
                    try emit(raw)
                    entry.compressedSize += UInt64(raw.count)
                }
                if !entry.zip64Local && entry.compressedSize >= ZIPFormat.max32 {
                    throw ZIPError(.zip64Required, "a streamed entry reached 4 GiB without ZIP64")
                }
            }
            open = entry
        }
    }

    /// Closes the open entry: flushes compression, checks declarations, completes its header.
    public func endEntry() throws(ZIPError) {
        try requireState(.inEntry)
        try guarded { () throws(ZIPError) in
            guard var entry = open else { throw ZIPError(.invalidArgument, "no entry is open") }
            if let deflater = entry.deflater {
                var produced: UInt64 = 0
                try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true) { out throws(ZIPError) in
                    try emit(out)
                    produced += UInt64(out.count)
                }
                entry.compressedSize += produced
                if !entry.zip64Local && entry.compressedSize >= ZIPFormat.max32 {
                    throw ZIPError(.zip64Required, "a streamed entry reached 4 GiB without ZIP64")
                }
            }
            if let declared = entry.declaredSize, declared != entry.uncompressedSize {
                throw ZIPError(.sizeMismatch, "the bytes written differ from the entry's declared size")
            }
            if let declared = entry.declaredCRC, declared != entry.crc {
                throw ZIPError(.crcMismatch, "the bytes written do not have the declared CRC-32")
            }
            switch entry.mode {
            case .known:
                break
            case .patch:
                let header = localHeader(name: entry.name, flags: entry.flags, method: entry.method, time: entry.time,
                                         date: entry.date, crc: entry.crc, compressedSize: entry.compressedSize,
                                         uncompressedSize: entry.uncompressedSize, zip64: entry.zip64Local)
                let result: Result<Void, ZIPError> = header.withUnsafeBytes { raw in
                    Result { () throws(ZIPError) in
                        do { try sink.patch(at: entry.headerOffset, with: raw) } catch { throw Self.wrap(error, "patching a local header failed") }
                    }
                }
                try result.get()
            case .descriptor:
                var d = [UInt8]()
                d.appendLE(ZIPFormat.dataDescriptorSignature)
                d.appendLE(entry.crc)
                if entry.zip64Local {
                    d.appendLE(entry.compressedSize)
                    d.appendLE(entry.uncompressedSize)
                } else {
                    d.appendLE(UInt32(entry.compressedSize))
                    d.appendLE(UInt32(entry.uncompressedSize))
                }
                try emit(d)
            }
            records.append(Record(name: entry.name, flags: entry.flags, method: entry.method, time: entry.time,
                                  date: entry.date, crc: entry.crc, compressedSize: entry.compressedSize,
                                  uncompressedSize: entry.uncompressedSize, offset: entry.headerOffset,
                                  zip64Local: entry.zip64Local))
            open = nil
            state = .ready
        }
    }

    // MARK: Finishing

    /// Writes the central directory and the end records. Returns the archive's size in bytes.
    @discardableResult
    public func finish() throws(ZIPError) -> UInt64 {
        try requireState(.ready)
        try guarded { () throws(ZIPError) in
            let cdOffset = bytesWritten
            var buffer = [UInt8]()
            buffer.reserveCapacity(1 << 16)
            for record in records {
                buffer += centralHeader(record)
                if buffer.count >= 1 << 16 {
                    try emit(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try emit(buffer)
            let cdSize = bytesWritten - cdOffset
            let count = UInt64(records.count)
            let needs64 = forceZIP64 || count > ZIPFormat.max16 || cdOffset >= ZIPFormat.max32 || cdSize >= ZIPFormat.max32
            if needs64 && !allowZIP64 {
                throw ZIPError(.zip64Required, "the central directory needs ZIP64, which was not allowed")
            }
            if layout == .exact, (checkedSum(cdOffset, cdSize, UInt64(ZIPFormat.endSize)) ?? UInt64.max) > ZIPFormat.max32 {
                throw ZIPError(.zip64Required, "an exact-layout archive may not exceed 4,294,967,295 bytes")
            }
            var tail = [UInt8]()
            if needs64 {
                let zip64EndOffset = bytesWritten
                tail.appendLE(ZIPFormat.zip64EndSignature)
                tail.appendLE(UInt64(ZIPFormat.zip64EndSize - 12))
                tail.appendLE(ZIPFormat.version45)
                tail.appendLE(ZIPFormat.version45)
                tail.appendLE(UInt32(0))
                tail.appendLE(UInt32(0))
                tail.appendLE(count)
                tail.appendLE(count)
                tail.appendLE(cdSize)
                tail.appendLE(cdOffset)
                tail.appendLE(ZIPFormat.zip64LocatorSignature)
                tail.appendLE(UInt32(0))
                tail.appendLE(zip64EndOffset)
                tail.appendLE(UInt32(1))
            }
            let count16 = (forceZIP64 || count >= ZIPFormat.max16) ? UInt16.max : UInt16(count)
            tail.appendLE(ZIPFormat.endSignature)
            tail.appendLE(UInt16(0))
            tail.appendLE(UInt16(0))
            tail.appendLE(count16)
            tail.appendLE(count16)
            tail.appendLE((forceZIP64 || cdSize >= ZIPFormat.max32) ? UInt32.max : UInt32(cdSize))
            tail.appendLE((forceZIP64 || cdOffset >= ZIPFormat.max32) ? UInt32.max : UInt32(cdOffset))
            tail.appendLE(UInt16(0))
            try emit(tail)
            state = .finished
        }
        return bytesWritten
    }

    // MARK: Records

    private func localHeader(name: [UInt8], flags: UInt16, method: ZIPCompressionMethod, time: UInt16, date: UInt16,
                             crc: UInt32, compressedSize: UInt64, uncompressedSize: UInt64, zip64: Bool) -> [UInt8] {
        var h = [UInt8]()
        h.reserveCapacity(ZIPFormat.localHeaderSize + name.count + 20)
        h.appendLE(ZIPFormat.localHeaderSignature)
        h.appendLE(zip64 ? ZIPFormat.version45 : ZIPFormat.version20)
        h.appendLE(flags)
        h.appendLE(method.rawValue)
        h.appendLE(time)
        h.appendLE(date)
        h.appendLE(crc)
        h.appendLE(zip64 ? UInt32.max : UInt32(compressedSize))
        h.appendLE(zip64 ? UInt32.max : UInt32(uncompressedSize))
        h.appendLE(UInt16(name.count))
        h.appendLE(UInt16(zip64 ? 20 : 0))
        h += name
        if zip64 {
            h.appendLE(ZIPFormat.zip64ExtraID)
            h.appendLE(UInt16(16))
            h.appendLE(uncompressedSize)
            h.appendLE(compressedSize)
        }
        return h
    }

    private func centralHeader(_ r: Record) -> [UInt8] {
        let bigU = forceZIP64 || r.uncompressedSize >= ZIPFormat.max32
        let bigC = forceZIP64 || r.compressedSize >= ZIPFormat.max32
        let bigO = forceZIP64 || r.offset >= ZIPFormat.max32
        var extra = [UInt8]()
        if bigU || bigC || bigO {
            var values = [UInt8]()
            if bigU { values.appendLE(r.uncompressedSize) }
            if bigC { values.appendLE(r.compressedSize) }
            if bigO { values.appendLE(r.offset) }
            extra.appendLE(ZIPFormat.zip64ExtraID)
            extra.appendLE(UInt16(values.count))
            extra += values
        }
        let version = (r.zip64Local || !extra.isEmpty) ? ZIPFormat.version45 : ZIPFormat.version20
        var h = [UInt8]()
        h.reserveCapacity(ZIPFormat.centralHeaderSize + r.name.count + extra.count)
        h.appendLE(ZIPFormat.centralHeaderSignature)
        h.appendLE(ZIPFormat.unixHost | version)       // made by: Unix, so names are not taken as CP437
        h.appendLE(version)
        h.appendLE(r.flags)
        h.appendLE(r.method.rawValue)
        h.appendLE(r.time)
        h.appendLE(r.date)
        h.appendLE(r.crc)
        h.appendLE(bigC ? UInt32.max : UInt32(r.compressedSize))
        h.appendLE(bigU ? UInt32.max : UInt32(r.uncompressedSize))
        h.appendLE(UInt16(r.name.count))
        h.appendLE(UInt16(extra.count))
        h.appendLE(UInt16(0))                       // comment length
        h.appendLE(UInt16(0))                       // disk number start
        h.appendLE(UInt16(0))                       // internal attributes
        h.appendLE(r.name.last == UInt8(ascii: "/") ? ZIPFormat.directoryAttributes : ZIPFormat.fileAttributes)
        h.appendLE(bigO ? UInt32.max : UInt32(r.offset))
        h += r.name
        h += extra
        return h
    }

    // MARK: Helpers

    private func prepare(name: String) throws(ZIPError) -> ([UInt8], UInt16) {
        try ZIPNameRules.check(name)
        let bytes = Array(name.utf8)
        guard bytes.count <= Int(UInt16.max) else { throw ZIPError(.limitExceeded, "an entry name is longer than 65,535 bytes") }
        let ascii = bytes.allSatisfy { $0 < 0x80 }
        if layout == .exact && !ascii {
            throw ZIPError(.unsafeName, "exact-layout entry names must be ASCII")
        }
        guard !names.contains(name) else { throw ZIPError(.duplicateName, "an entry with this name was already written") }
        if !allowZIP64 && records.count >= Int(ZIPFormat.max16) {
            throw ZIPError(.zip64Required, "more than 65,535 entries need ZIP64, which was not allowed")
        }
        return (bytes, ascii ? 0 : ZIPFormat.flagUTF8)
    }

    private func checkOffset(_ offset: UInt64) throws(ZIPError) {
        if offset >= ZIPFormat.max32 && !allowZIP64 {
            throw ZIPError(.zip64Required, "an entry starting past 4 GiB needs ZIP64, which was not allowed")
        }
    }

    private func requireState(_ wanted: State) throws(ZIPError) {
        guard state == wanted else {
            switch state {
            case .failed: throw ZIPError(.invalidArgument, "the writer failed earlier; the archive is unusable")
            case .finished: throw ZIPError(.invalidArgument, "the archive is already finished")
            case .inEntry: throw ZIPError(.invalidArgument, "an entry is still open; call endEntry() first")
            case .ready: throw ZIPError(.invalidArgument, "no entry is open; call beginEntry() first")
            }
        }
    }

    /// Runs a step that writes; any failure leaves the writer unusable, since the sink may hold
    /// a partial record.
    private func guarded(_ body: () throws(ZIPError) -> Void) throws(ZIPError) {
        do {
            try body()
        } catch {
            state = .failed
            open = nil
            throw error
        }
    }

    private func emit(_ bytes: [UInt8]) throws(ZIPError) {
        let result: Result<Void, ZIPError> = bytes.withUnsafeBytes { raw in
            Result { () throws(ZIPError) in try emit(raw) }
        }
        try result.get()
    }

    private func emit(_ raw: UnsafeRawBufferPointer) throws(ZIPError) {
        if raw.isEmpty { return }
        do {
            try sink.write(raw)
        } catch {
            throw Self.wrap(error, "the sink failed to write")
        }
        bytesWritten += UInt64(raw.count)
    }

    static func wrap(_ error: any Error, _ reason: String) -> ZIPError {
        if let zipError = error as? ZIPError { return zipError }
        return ZIPError(.io, reason, underlying: error)
    }
}
