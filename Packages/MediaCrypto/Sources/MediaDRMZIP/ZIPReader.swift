import Foundation

/// Reads a ZIP archive through random access, central directory first.
///
/// Opening reads only the end records and the central directory, and checks them whole before
/// anything else: entry count and size limits (before memory is allocated for entries), every
/// offset and size against the archive, overlaps, names (traversal, absolute, backslash, NUL,
/// empty, duplicates), encryption and methods. An entry's local header is read and compared with
/// its central record only when that entry is used, so one entry of a large archive costs one
/// header read plus its data.
public final class ZIPReader: Sendable {
    public let source: any ZIPRandomAccessSource
    public let limits: ZIPLimits
    /// Entries in central-directory order.
    public let entries: [ZIPEntry]
    /// Whether ZIP64 end records were present.
    public let isZIP64: Bool
    public let comment: Data
    public let centralDirectoryOffset: UInt64
    public let centralDirectorySize: UInt64
    /// Offset of the end-of-central-directory record.
    public let endRecordOffset: UInt64
    private let byName: [String: Int]

    public init(source: any ZIPRandomAccessSource, limits: ZIPLimits = .default) throws(ZIPError) {
        self.source = source
        self.limits = limits
        let size = source.size
        guard size <= limits.maxArchiveSize else {
            throw ZIPError(.limitExceeded, "the archive is larger than maxArchiveSize")
        }
        guard size >= UInt64(ZIPFormat.endSize) else {
            throw ZIPError(.truncated, "the archive is shorter than an end of central directory record")
        }

        // End of central directory: bounded backward scan; the record plus its comment must end
        // the file exactly.
        let tailCount = Int(min(size, UInt64(ZIPFormat.maxEndSearch)))
        let tailStart = size - UInt64(tailCount)
        let tail = try Self.read(source, offset: tailStart, count: tailCount)
        var found: Int?
        var i = tailCount - ZIPFormat.endSize
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4b, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                let commentLength = Int(tail[i + 20]) | Int(tail[i + 21]) << 8
                if commentLength == tailCount - i - ZIPFormat.endSize { found = i; break }
            }
            i -= 1
        }
        guard let eocd = found else {
            throw ZIPError(.badSignature, "no end of central directory record ends the archive")
        }
        var r = ByteReader(tail, at: eocd + 4)
        let disk = try r.u16(), cdDisk = try r.u16()
        let countOnDisk = try r.u16(), count16 = try r.u16()
        let cdSize32 = try r.u32(), cdOffset32 = try r.u32()
        let commentLength = Int(try r.u16())
        comment = Data(try r.take(commentLength))
        let eocdOffset = tailStart + UInt64(eocd)
        endRecordOffset = eocdOffset
        guard disk == 0, cdDisk == 0 else { throw ZIPError(.unsupported, "multi-disk archives are not supported") }
        guard countOnDisk == count16 else {
            throw ZIPError(.inconsistent, "the end record's two entry counts differ")
        }

        var entryCount = UInt64(count16)
        var cdSize = UInt64(cdSize32)
        var cdOffset = UInt64(cdOffset32)
        var cdEnd = eocdOffset
        var zip64 = false
        let locatorSize = UInt64(ZIPFormat.zip64LocatorSize)
        if eocdOffset >= locatorSize {
            let locatorOffset = eocdOffset - locatorSize
            var l = ByteReader(try Self.read(source, offset: locatorOffset, count: ZIPFormat.zip64LocatorSize))
            if try l.u32() == ZIPFormat.zip64LocatorSignature {
                guard limits.allowZIP64 else { throw ZIPError(.unsupported, "ZIP64 archives are not allowed by the limits") }
                let z64Disk = try l.u32()
                let z64Offset = try l.u64()
                let totalDisks = try l.u32()
                guard z64Disk == 0, totalDisks <= 1 else {
                    throw ZIPError(.unsupported, "multi-disk archives are not supported")
                }
                guard z64Offset <= locatorOffset, locatorOffset - z64Offset >= UInt64(ZIPFormat.zip64EndSize) else {
                    throw ZIPError(.outOfBounds, "the ZIP64 end record offset points outside the archive")
                }
                var z = ByteReader(try Self.read(source, offset: z64Offset, count: ZIPFormat.zip64EndSize))
                guard try z.u32() == ZIPFormat.zip64EndSignature else {
                    throw ZIPError(.badSignature, "the ZIP64 end record has a wrong signature")
                }
                let recordSize = try z.u64()
                guard recordSize >= 44, checkedSum(z64Offset, 12, recordSize) == locatorOffset else {
                    throw ZIPError(.inconsistent, "the ZIP64 end record's size does not reach the locator")
                }
                _ = try z.u16()
                _ = try z.u16()
                let d1 = try z.u32(), d2 = try z.u32()
                guard d1 == 0, d2 == 0 else { throw ZIPError(.unsupported, "multi-disk archives are not supported") }
                let count64OnDisk = try z.u64(), count64 = try z.u64()
                let cdSize64 = try z.u64(), cdOffset64 = try z.u64()
                guard count64OnDisk == count64 else {
                    throw ZIPError(.inconsistent, "the ZIP64 end record's two entry counts differ")
                }
                guard count16 == UInt16.max || UInt64(count16) == count64,
                      cdSize32 == UInt32.max || UInt64(cdSize32) == cdSize64,
                      cdOffset32 == UInt32.max || UInt64(cdOffset32) == cdOffset64 else {
                    throw ZIPError(.inconsistent, "the end record and the ZIP64 end record disagree")
                }
                entryCount = count64
                cdSize = cdSize64
                cdOffset = cdOffset64
                cdEnd = z64Offset
                zip64 = true
            }
        }
        if !zip64 && (cdSize32 == UInt32.max || cdOffset32 == UInt32.max) {
            throw ZIPError(.inconsistent, "the end record defers to a ZIP64 record that is missing")
        }
        isZIP64 = zip64
        guard let directoryEnd = checkedSum(cdOffset, cdSize), directoryEnd <= cdEnd else {
            throw ZIPError(.outOfBounds, "the central directory extends past the end records")
        }
        guard directoryEnd == cdEnd else {
            throw ZIPError(.inconsistent, "bytes lie between the central directory and the end records")
        }
        centralDirectoryOffset = cdOffset
        centralDirectorySize = cdSize

        // Limits, before the directory is read or entries allocated.
        guard entryCount <= UInt64(max(0, limits.maxEntries)) else {
            throw ZIPError(.tooManyEntries, "the archive has more entries than maxEntries")
        }
        let (minimumDirectory, overflow) = entryCount.multipliedReportingOverflow(by: UInt64(ZIPFormat.centralHeaderSize))
        guard !overflow, minimumDirectory <= cdSize else {
            throw ZIPError(.inconsistent, "the entry count is larger than the central directory can hold")
        }
        guard cdSize <= UInt64(max(0, limits.maxCentralDirectorySize)) else {
            throw ZIPError(.limitExceeded, "the central directory is larger than maxCentralDirectorySize")
        }

        let directory = try Self.read(source, offset: cdOffset, count: Int(cdSize))
        let parsed = try Self.parseDirectory(directory, count: Int(entryCount), directoryOffset: cdOffset, limits: limits)
        entries = parsed.entries
        byName = parsed.byName
    }

    public convenience init(data: some DataProtocol, limits: ZIPLimits = .default) throws(ZIPError) {
        try self.init(source: ZIPMemorySource(data), limits: limits)
    }

    public convenience init(path: String, limits: ZIPLimits = .default) throws(ZIPError) {
        try self.init(source: ZIPFileSource(path: path), limits: limits)
    }

    private struct RawEntry {
        let name: String
        let rawName: [UInt8]
        let method: ZIPCompressionMethod
        let flags: UInt16
        let time: UInt16
        let date: UInt16
        let crc: UInt32
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        let offset: UInt64
        let minimumEnd: UInt64
        let extraLength: Int
        let commentLength: Int
    }

    private static func parseDirectory(_ directory: [UInt8], count: Int, directoryOffset: UInt64,
                                       limits: ZIPLimits) throws(ZIPError) -> (entries: [ZIPEntry], byName: [String: Int]) {
        var r = ByteReader(directory, failure: ZIPError(.inconsistent, "a central directory record runs past the directory's end"))
        var raw: [RawEntry] = []
        raw.reserveCapacity(count)
        var byName: [String: Int] = [:]
        byName.reserveCapacity(count)
        var total: UInt64 = 0
        for _ in 0..<count {
            guard try r.u32() == ZIPFormat.centralHeaderSignature else {
                throw ZIPError(.badSignature, "a central directory record has a wrong signature")
            }
            _ = try r.u16()                                   // version made by
            _ = try r.u16()                                   // version needed
            let flags = try r.u16()
            let methodValue = try r.u16()
            let time = try r.u16(), date = try r.u16()
            let crc = try r.u32()
            let csize32 = try r.u32(), usize32 = try r.u32()
            let nameLength = Int(try r.u16()), extraLength = Int(try r.u16()), commentLength = Int(try r.u16())
            let diskStart = try r.u16()
            _ = try r.u16()                                   // internal attributes
            _ = try r.u32()                                   // external attributes
            let offset32 = try r.u32()
            if flags & (ZIPFormat.flagEncrypted | ZIPFormat.flagStrongEncryption | ZIPFormat.flagMaskedHeaders) != 0 {
                throw ZIPError(.unsupported, "encrypted entries are not supported")
            }
            guard let method = ZIPCompressionMethod(rawValue: methodValue) else {
                throw ZIPError(.unsupported, "an entry uses a compression method other than stored or deflate")
            }
            guard nameLength <= limits.maxNameLength else {
                throw ZIPError(.limitExceeded, "an entry name is longer than maxNameLength")
            }
            let rawName = try r.take(nameLength)
            let extra = try r.take(extraLength)
            try r.skip(commentLength)
            let name = try ZIPNameRules.decode(rawName)

            var usize = UInt64(usize32), csize = UInt64(csize32), offset = UInt64(offset32), disk = UInt32(diskStart)
            var sawZIP64 = false
            var e = ByteReader(extra, failure: ZIPError(.inconsistent, "an extra field runs past its end"))
            while e.remaining > 0 {
                let id = try e.u16()
                let length = Int(try e.u16())
                let body = try e.take(length)
                guard id == ZIPFormat.zip64ExtraID else { continue }
                guard limits.allowZIP64 else { throw ZIPError(.unsupported, "ZIP64 entries are not allowed by the limits") }
                guard !sawZIP64 else { throw ZIPError(.inconsistent, "an entry has two ZIP64 extra fields") }
                sawZIP64 = true
                var z = ByteReader(body, failure: ZIPError(.inconsistent, "a ZIP64 extra field is too short"))
                if usize32 == UInt32.max { usize = try z.u64() }
                if csize32 == UInt32.max { csize = try z.u64() }
                if offset32 == UInt32.max { offset = try z.u64() }
                if diskStart == UInt16.max { disk = try z.u32() }
            }
            if !sawZIP64 && (usize32 == UInt32.max || csize32 == UInt32.max || offset32 == UInt32.max) {
                throw ZIPError(.inconsistent, "an entry defers to a ZIP64 extra field that is missing")
            }
            guard disk == 0 else { throw ZIPError(.unsupported, "multi-disk archives are not supported") }
            if method == .stored && csize != usize {
                throw ZIPError(.inconsistent, "a stored entry's compressed and uncompressed sizes differ")
            }
            guard usize <= limits.maxEntrySize, csize <= limits.maxEntrySize else {
                throw ZIPError(.entryTooLarge, "an entry is larger than maxEntrySize")
            }
            guard let newTotal = checkedSum(total, usize), newTotal <= limits.maxTotalUncompressed else {
                throw ZIPError(.limitExceeded, "the entries' total size is larger than maxTotalUncompressed")
            }
            total = newTotal
            guard let minimumEnd = checkedSum(offset, UInt64(ZIPFormat.localHeaderSize), UInt64(nameLength), csize),
                  minimumEnd <= directoryOffset else {
                throw ZIPError(.outOfBounds, "an entry's header or data lies past the start of the central directory")
            }
            guard byName[name] == nil else { throw ZIPError(.duplicateName, "two entries have the same name") }
            byName[name] = raw.count
            raw.append(RawEntry(name: name, rawName: rawName, method: method, flags: flags, time: time, date: date,
                                crc: crc, compressedSize: csize, uncompressedSize: usize, offset: offset,
                                minimumEnd: minimumEnd, extraLength: extraLength, commentLength: commentLength))
        }
        guard r.remaining == 0 else {
            throw ZIPError(.inconsistent, "the central directory holds more bytes than its entries")
        }

        // Each entry must end before the next local header (or the directory): no overlaps, so no
        // byte of the archive is counted twice.
        let order = raw.indices.sorted { raw[$0].offset < raw[$1].offset }
        var boundaries = [UInt64](repeating: directoryOffset, count: raw.count)
        for (k, index) in order.enumerated() {
            let next = k + 1 < order.count ? raw[order[k + 1]].offset : directoryOffset
            guard raw[index].minimumEnd <= next else {
                throw ZIPError(.outOfBounds, "two entries overlap")
            }
            boundaries[index] = next
        }
        var entries: [ZIPEntry] = []
        entries.reserveCapacity(raw.count)
        for (index, e) in raw.enumerated() {
            entries.append(ZIPEntry(name: e.name, compressionMethod: e.method, crc32: e.crc,
                                    compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize,
                                    localHeaderOffset: e.offset, flags: e.flags, dosTime: e.time, dosDate: e.date,
                                    dataOffset: nil, index: index, boundary: boundaries[index], rawName: e.rawName,
                                    centralExtraLength: e.extraLength, centralCommentLength: e.commentLength))
        }
        return (entries, byName)
    }

    // MARK: Entries

    public func entry(named name: String) -> ZIPEntry? {
        guard let index = byName[name] else { return nil }
        return entries[index]
    }

    /// Reads the entry's local header, checks it against the central directory (name, method,
    /// flags, and CRC-32 and sizes unless a data descriptor carries them) and returns the entry
    /// with `dataOffset` set. A data descriptor itself is not read: the central directory's
    /// CRC-32 and sizes are the ones the data is verified against.
    public func verifiedEntry(_ entry: ZIPEntry) throws(ZIPError) -> ZIPEntry {
        var e = try own(entry)
        let offset = e.localHeaderOffset
        var h = ByteReader(try Self.read(source, offset: offset, count: ZIPFormat.localHeaderSize))
        guard try h.u32() == ZIPFormat.localHeaderSignature else {
            throw ZIPError(.badSignature, "a local header has a wrong signature")
        }
        _ = try h.u16()                                       // version needed
        let flags = try h.u16()
        let method = try h.u16()
        _ = try h.u16()                                       // time
        _ = try h.u16()                                       // date
        let crc = try h.u32()
        let csize32 = try h.u32(), usize32 = try h.u32()
        let nameLength = Int(try h.u16()), extraLength = Int(try h.u16())
        guard flags == e.flags else { throw ZIPError(.headerMismatch, "a local header's flags differ from the central directory") }
        guard method == e.compressionMethod.rawValue else {
            throw ZIPError(.headerMismatch, "a local header's method differs from the central directory")
        }
        guard nameLength == e.rawName.count else {
            throw ZIPError(.headerMismatch, "a local header's name differs from the central directory")
        }
        guard let variableEnd = checkedSum(offset, UInt64(ZIPFormat.localHeaderSize), UInt64(nameLength), UInt64(extraLength)),
              variableEnd <= e.boundary else {
            throw ZIPError(.outOfBounds, "a local header runs into the next entry")
        }
        var v = ByteReader(try Self.read(source, offset: offset + UInt64(ZIPFormat.localHeaderSize), count: nameLength + extraLength))
        guard try v.take(nameLength) == e.rawName else {
            throw ZIPError(.headerMismatch, "a local header's name differs from the central directory")
        }
        var usize = UInt64(usize32), csize = UInt64(csize32)
        var x = ByteReader(try v.take(extraLength), failure: ZIPError(.inconsistent, "a local extra field runs past its end"))
        var sawZIP64 = false
        while x.remaining > 0 {
            let id = try x.u16()
            let length = Int(try x.u16())
            let body = try x.take(length)
            guard id == ZIPFormat.zip64ExtraID else { continue }
            guard limits.allowZIP64 else { throw ZIPError(.unsupported, "ZIP64 entries are not allowed by the limits") }
            guard !sawZIP64 else { throw ZIPError(.inconsistent, "a local header has two ZIP64 extra fields") }
            sawZIP64 = true
            var z = ByteReader(body, failure: ZIPError(.inconsistent, "a local ZIP64 extra field is too short"))
            if usize32 == UInt32.max { usize = try z.u64() }
            if csize32 == UInt32.max { csize = try z.u64() }
        }
        if flags & ZIPFormat.flagDataDescriptor == 0 {
            guard crc == e.crc32 else { throw ZIPError(.headerMismatch, "a local header's CRC-32 differs from the central directory") }
            guard csize == e.compressedSize, usize == e.uncompressedSize else {
                throw ZIPError(.headerMismatch, "a local header's sizes differ from the central directory")
            }
        }
        guard let dataEnd = checkedSum(variableEnd, e.compressedSize), dataEnd <= e.boundary else {
            throw ZIPError(.outOfBounds, "an entry's data runs into the next entry")
        }
        e.dataOffset = variableEnd
        return e
    }

    /// The byte range of the entry's stored data in the archive (its local header verified).
    /// For a stored entry these are the entry's bytes, e.g. to serve an HTTP Range request.
    public func dataRange(for entry: ZIPEntry) throws(ZIPError) -> Range<UInt64> {
        let e = try verifiedEntry(entry)
        let start = e.dataOffset ?? 0
        return start..<(start + e.compressedSize)
    }

    /// The entry's bytes, returned only after the CRC-32 and size were verified.
    /// With `requireExactLayout`, the local header must also have no extra field (see
    /// `verifiedExactEntry(_:)`), so an archive whose exact layout was checked from the central
    /// directory alone has each entry's local header verified before its bytes are used.
    public func read(_ entry: ZIPEntry, requireExactLayout: Bool = false) throws(ZIPError) -> Data {
        let stream = try self.stream(entry, requireExactLayout: requireExactLayout)
        var data = Data()
        // Reserve what the entry can really produce: deflate expands at most about 1032:1, so a
        // lying uncompressed size cannot make this allocate more than the data could fill.
        let (expanded, overflow) = entry.compressedSize.multipliedReportingOverflow(by: 1032)
        let reserve: UInt64 = entry.compressionMethod == .stored
            ? entry.uncompressedSize
            : min(entry.uncompressedSize, overflow ? UInt64.max : (checkedSum(expanded, 1024) ?? UInt64.max))
        if reserve <= UInt64(Int.max) { data.reserveCapacity(Int(min(reserve, UInt64(1) << 32))) }
        while let chunk = try stream.next() { data.append(chunk) }
        return data
    }

    public func read(named name: String) throws(ZIPError) -> Data {
        guard let entry = entry(named: name) else { throw ZIPError(.notFound, "no entry has the requested name") }
        return try read(entry)
    }

    /// Opens the entry for reading in chunks (pull). The chunks are not verified until `next()`
    /// has returned `nil`: a CRC-32 or size failure is thrown by the final call.
    public func stream(_ entry: ZIPEntry, chunkSize: Int = 1 << 16, requireExactLayout: Bool = false) throws(ZIPError) -> ZIPEntryStream {
        guard chunkSize > 0 else { throw ZIPError(.invalidArgument, "the chunk size must be positive") }
        let mine = try own(entry)
        // The header and the data lie between the entry's offset and its boundary: a source that
        // can (an HTTP Range source) fetches them in one request.
        let extent = mine.boundary - mine.localHeaderOffset
        if extent <= UInt64(Int.max) { source.willRead(offset: mine.localHeaderOffset, count: Int(extent)) }
        let verified = requireExactLayout ? try verifiedExactEntry(mine) : try verifiedEntry(mine)
        return try ZIPEntryStream(source: source, entry: verified, chunkSize: chunkSize)
    }

    /// Reads the entry in chunks (push). `body` sees unverified data; the CRC-32 and size are
    /// checked after the last chunk and a failure is thrown then. Errors thrown by `body` are
    /// rethrown unchanged; everything else is a `ZIPError`.
    public func readStream(_ entry: ZIPEntry, chunkSize: Int = 1 << 16, _ body: (Data) throws -> Void) throws {
        let stream = try self.stream(entry, chunkSize: chunkSize)
        while let chunk = try stream.next() { try body(chunk) }
    }

    /// Checks the fps-v2 exact layout (draft-arkavo-tdf-fairplay-01 §4.1–4.3): no ZIP64, empty
    /// archive comment, first local header at 0, entries back to back with no extra fields,
    /// comments, data descriptors or flags, the central directory right after the last entry and
    /// the end record right after it, ending the file. With `storedOnly`, every entry is stored.
    /// With `readingLocalHeaders` (the default) every local header is read and verified (not
    /// the data). Without it the layout is checked from the central directory alone: each entry
    /// must start where the previous one ends, taking its local header as 30 bytes plus its name
    /// (the exact layout allows no local extra field). That holds for the archive only once each
    /// entry's local header is verified with `verifiedExactEntry(_:)` (or a read with
    /// `requireExactLayout`) before its bytes are used.
    public func verifyExactLayout(storedOnly: Bool = true, readingLocalHeaders: Bool = true) throws(ZIPError) {
        guard !isZIP64 else { throw ZIPError(.notExactLayout, "the archive uses ZIP64") }
        guard comment.isEmpty else { throw ZIPError(.notExactLayout, "the archive has a comment") }
        guard centralDirectoryOffset + centralDirectorySize == endRecordOffset,
              endRecordOffset + UInt64(ZIPFormat.endSize) == source.size else {
            throw ZIPError(.notExactLayout, "the end record does not follow the central directory and end the file")
        }
        var expected: UInt64 = 0
        for entry in entries.sorted(by: { $0.localHeaderOffset < $1.localHeaderOffset }) {
            guard entry.localHeaderOffset == expected else {
                throw ZIPError(.notExactLayout, "an entry does not start where the previous one ended")
            }
            guard entry.flags == 0 else { throw ZIPError(.notExactLayout, "an entry has general-purpose flags set") }
            guard entry.centralExtraLength == 0, entry.centralCommentLength == 0 else {
                throw ZIPError(.notExactLayout, "a central record has an extra field or a comment")
            }
            if storedOnly && entry.compressionMethod != .stored {
                throw ZIPError(.notExactLayout, "an entry is not stored")
            }
            if readingLocalHeaders { try verifiedExactEntry(entry) }
            expected = entry.localHeaderOffset + UInt64(ZIPFormat.localHeaderSize + entry.rawName.count) + entry.compressedSize
        }
        guard expected == centralDirectoryOffset else {
            throw ZIPError(.notExactLayout, "bytes lie between the last entry and the central directory")
        }
    }

    /// `verifiedEntry(_:)`, and the local header has no extra field: the entry's data starts 30
    /// bytes plus its name after its header (the exact layout, §4.3 of the fps-v2 profile).
    @discardableResult
    public func verifiedExactEntry(_ entry: ZIPEntry) throws(ZIPError) -> ZIPEntry {
        let verified = try verifiedEntry(entry)
        guard verified.dataOffset == verified.localHeaderOffset + UInt64(ZIPFormat.localHeaderSize + verified.rawName.count) else {
            throw ZIPError(.notExactLayout, "a local header has an extra field")
        }
        return verified
    }

    // MARK: Helpers

    private func own(_ entry: ZIPEntry) throws(ZIPError) -> ZIPEntry {
        guard entry.index >= 0, entry.index < entries.count else {
            throw ZIPError(.notFound, "the entry does not belong to this archive")
        }
        let mine = entries[entry.index]
        guard mine.name == entry.name, mine.localHeaderOffset == entry.localHeaderOffset else {
            throw ZIPError(.notFound, "the entry does not belong to this archive")
        }
        return mine
    }

    static func read(_ source: any ZIPRandomAccessSource, offset: UInt64, count: Int) throws(ZIPError) -> [UInt8] {
        guard count >= 0, offset <= source.size, UInt64(count) <= source.size - offset else {
            throw ZIPError(.truncated, "a read reaches past the end of the archive")
        }
        if count == 0 { return [] }
        let bytes: [UInt8]
        do {
            bytes = try source.read(offset: offset, count: count)
        } catch {
            throw ZIPWriter.wrap(error, "the archive source failed to read")
        }
        guard bytes.count == count else { throw ZIPError(.io, "the archive source returned a short read") }
        return bytes
    }
}
