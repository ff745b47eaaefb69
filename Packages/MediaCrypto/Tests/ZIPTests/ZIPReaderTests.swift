import Foundation
import Testing
@testable import MediaDRMZIP

/// A source that records every read, to prove what the reader touches.
final class CountingSource: ZIPRandomAccessSource, @unchecked Sendable {
    let inner: ZIPMemorySource
    private let lock = NSLock()
    private var log: [Range<UInt64>] = []

    init(_ bytes: [UInt8]) { inner = ZIPMemorySource(bytes) }
    var size: UInt64 { inner.size }
    var reads: [Range<UInt64>] { lock.withLock { log } }

    func read(offset: UInt64, count: Int) throws -> [UInt8] {
        lock.withLock { log.append(offset..<(offset + UInt64(count))) }
        return try inner.read(offset: offset, count: count)
    }
}

/// A ZIP64 archive with a 5 GiB stored entry of zeros that exists only virtually: a prefix, a
/// run of zeros, a suffix.
struct SparseSource: ZIPRandomAccessSource {
    let prefix: [UInt8]
    let zeros: UInt64
    let suffix: [UInt8]
    var size: UInt64 { UInt64(prefix.count) + zeros + UInt64(suffix.count) }

    func read(offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset + UInt64(count) <= size else { throw ZIPError(.truncated, "past end") }
        var out = [UInt8]()
        out.reserveCapacity(count)
        var p = offset
        let end = offset + UInt64(count)
        let zerosEnd = UInt64(prefix.count) + zeros
        while p < end {
            if p < UInt64(prefix.count) {
                out.append(prefix[Int(p)]); p += 1
            } else if p < zerosEnd {
                let n = min(end, zerosEnd) - p
                out += repeatElement(0, count: Int(n)); p += n
            } else {
                out.append(suffix[Int(p - zerosEnd)]); p += 1
            }
        }
        return out
    }

    static let bigSize: UInt64 = 5 << 30
    static let smallData = Array("hello from beyond 4 GiB".utf8)

    static func make() -> SparseSource {
        let bigName = Array("big.bin".utf8), smallName = Array("small.txt".utf8)
        var prefix = [UInt8]()
        prefix.le32(0x0403_4b50); prefix.le16(45); prefix.le16(0); prefix.le16(0); prefix.le16(0); prefix.le16(0x21)
        prefix.le32(0); prefix.le32(0xFFFF_FFFF); prefix.le32(0xFFFF_FFFF)
        prefix.le16(UInt16(bigName.count)); prefix.le16(20)
        prefix += bigName
        prefix.le16(1); prefix.le16(16); prefix.le64(bigSize); prefix.le64(bigSize)
        let base = UInt64(prefix.count) + bigSize
        var s = [UInt8]()
        let smallOffset = base
        s.le32(0x0403_4b50); s.le16(20); s.le16(0); s.le16(0); s.le16(0); s.le16(0x21)
        s.le32(CRC32.checksum(smallData)); s.le32(UInt32(smallData.count)); s.le32(UInt32(smallData.count))
        s.le16(UInt16(smallName.count)); s.le16(0)
        s += smallName + smallData
        let cdOffset = base + UInt64(s.count)
        let cdStart = s.count
        s.le32(0x0201_4b50); s.le16(45); s.le16(45); s.le16(0); s.le16(0); s.le16(0); s.le16(0x21)
        s.le32(0); s.le32(0xFFFF_FFFF); s.le32(0xFFFF_FFFF)
        s.le16(UInt16(bigName.count)); s.le16(20); s.le16(0); s.le16(0); s.le16(0); s.le32(0); s.le32(0)
        s += bigName
        s.le16(1); s.le16(16); s.le64(bigSize); s.le64(bigSize)
        s.le32(0x0201_4b50); s.le16(45); s.le16(45); s.le16(0); s.le16(0); s.le16(0); s.le16(0x21)
        s.le32(CRC32.checksum(smallData)); s.le32(UInt32(smallData.count)); s.le32(UInt32(smallData.count))
        s.le16(UInt16(smallName.count)); s.le16(12); s.le16(0); s.le16(0); s.le16(0); s.le32(0); s.le32(0xFFFF_FFFF)
        s += smallName
        s.le16(1); s.le16(8); s.le64(smallOffset)
        let cdSize = UInt64(s.count - cdStart)
        let z64Offset = base + UInt64(s.count)
        s.le32(0x0606_4b50); s.le64(44); s.le16(45); s.le16(45); s.le32(0); s.le32(0)
        s.le64(2); s.le64(2); s.le64(cdSize); s.le64(cdOffset)
        s.le32(0x0706_4b50); s.le32(0); s.le64(z64Offset); s.le32(1)
        s.le32(0x0605_4b50); s.le16(0); s.le16(0); s.le16(2); s.le16(2)
        s.le32(UInt32(cdSize)); s.le32(0xFFFF_FFFF); s.le16(0)
        return SparseSource(prefix: prefix, zeros: bigSize, suffix: s)
    }
}

@Suite struct ZIPReaderTests {
    static func sample() throws -> [UInt8] {
        try makeArchive([("a.txt", Array("alpha alpha alpha".utf8), .stored),
                         ("b.txt", TestData.text(7, repeat: 20), .deflate),
                         ("d/", [], .stored),
                         ("d/c.bin", TestData.bytes(count: 40, seed: 3), .stored)])
    }

    @Test func everyPrefixFails() throws {
        let archives = [try Self.sample(),
                        try makeArchive(layout: .exact, [("m.json", Array("{}".utf8), .stored), ("s.m4s", [1, 2, 3], .stored)]),
                        try makeArchive(forceZIP64: true, [("x", TestData.text(1, repeat: 5), .deflate), ("y", [9], .stored)])]
        for archive in archives {
            #expect(throws: Never.self) { try readAll(archive) }
            for length in 0..<archive.count {
                #expect(throws: ZIPError.self, "prefix \(length)") { try readAll(Array(archive[0..<length])) }
            }
        }
    }

    @Test func everySingleByteCorruptionFailsOrReadsTheSameData() throws {
        let archive = try Self.sample()
        let original = try readAll(archive)
        for i in archive.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var bad = archive
                bad[i] ^= mask
                do {
                    let result = try readAll(bad)
                    #expect(result == original, "byte \(i) ^ \(mask) returned different data")
                } catch {
                    _ = error.code   // any ZIPError is acceptable; a trap is not
                }
            }
        }
    }

    @Test func badCRC() throws {
        var a = ArchiveBytes(bytes: try Self.sample())
        a.bytes[a.local(0) + 30 + 5] ^= 0x20                      // one data byte of a.txt
        expectZIPError(.crcMismatch, a.bytes)
        var raw = RawEntry("x", stored: [1, 2, 3])
        raw.crc ^= 1                                              // wrong in both headers
        expectZIPError(.crcMismatch, RawZIP.build([raw]))
    }

    @Test func localHeaderMustAgree() throws {
        let base = ArchiveBytes(bytes: try Self.sample())
        var name = base; name.bytes[name.local(0) + 30] = UInt8(ascii: "z")
        expectZIPError(.headerMismatch, name.bytes)
        var size = base; size.set32(size.local(0) + 18, size.u32(size.local(0) + 18) - 1)
        expectZIPError(.headerMismatch, size.bytes)
        var usize = base; usize.set32(usize.local(1) + 22, usize.u32(usize.local(1) + 22) + 1)
        expectZIPError(.headerMismatch, usize.bytes)
        var crc = base; crc.set32(crc.local(0) + 14, 0)
        expectZIPError(.headerMismatch, crc.bytes)
        var method = base; method.set16(method.local(0) + 8, 8)
        expectZIPError(.headerMismatch, method.bytes)
        var flags = base; flags.set16(flags.local(0) + 6, 1 << 11)
        expectZIPError(.headerMismatch, flags.bytes)
        var signature = base; signature.bytes[signature.local(1)] = 0
        expectZIPError(.badSignature, signature.bytes)
    }

    @Test func offsetsOutsideTheArchive() throws {
        let base = ArchiveBytes(bytes: try Self.sample())
        var past = base; past.set32(past.central(0) + 42, UInt32(past.bytes.count + 1_000))
        expectZIPError(.outOfBounds, past.bytes)
        var intoDirectory = base; intoDirectory.set32(intoDirectory.central(3) + 42, UInt32(intoDirectory.cdOffset - 10))
        expectZIPError(.outOfBounds, intoDirectory.bytes)
        var overlap = base; overlap.set32(overlap.central(1) + 42, 0)
        expectZIPError(.outOfBounds, overlap.bytes)
        var cdPast = base; cdPast.set32(cdPast.eocd + 16, UInt32(cdPast.bytes.count))
        expectZIPError(.outOfBounds, cdPast.bytes)
        var bigSize = base; bigSize.set32(bigSize.central(3) + 20, 1_000_000); bigSize.set32(bigSize.central(3) + 24, 1_000_000)
        expectZIPError(.outOfBounds, bigSize.bytes)
    }

    @Test func countsMustFitTheDirectory() throws {
        let base = ArchiveBytes(bytes: try Self.sample())
        var tooMany = base; tooMany.set16(tooMany.eocd + 8, 1_000); tooMany.set16(tooMany.eocd + 10, 1_000)
        expectZIPError(.inconsistent, tooMany.bytes)
        var tooFew = base; tooFew.set16(tooFew.eocd + 8, 2); tooFew.set16(tooFew.eocd + 10, 2)
        expectZIPError(.inconsistent, tooFew.bytes)
        var differing = base; differing.set16(differing.eocd + 8, 3)
        expectZIPError(.inconsistent, differing.bytes)
        var gap = base.bytes                                      // junk between directory and end record
        gap.insert(contentsOf: [0, 0, 0, 0], at: base.eocd)
        expectZIPError(.inconsistent, gap)
        var multiDisk = base; multiDisk.set16(multiDisk.eocd + 4, 1)
        expectZIPError(.unsupported, multiDisk.bytes)
        var storedSizes = base; storedSizes.set32(storedSizes.central(0) + 20, 3)
        expectZIPError(.inconsistent, storedSizes.bytes)
    }

    @Test func limitsAreCheckedBeforeTheDirectoryIsRead() throws {
        let archive = try Self.sample()
        let source = CountingSource(archive)
        #expect(throws: ZIPError(.tooManyEntries, "")) { try ZIPReader(source: source, limits: ZIPLimits(maxEntries: 3)) }
        let cdStart = UInt64(ArchiveBytes(bytes: archive).cdOffset)
        // Only the end-record scan (and the ZIP64 locator probe) happened; the directory was never
        // fetched on its own.
        #expect(source.reads.count <= 2)
        #expect(!source.reads.contains { $0.lowerBound == cdStart })
        expectZIPError(.limitExceeded, archive, limits: ZIPLimits(maxCentralDirectorySize: 100))
        expectZIPError(.entryTooLarge, archive, limits: ZIPLimits(maxEntrySize: 100))
        expectZIPError(.limitExceeded, archive, limits: ZIPLimits(maxTotalUncompressed: 200))
        expectZIPError(.limitExceeded, archive, limits: ZIPLimits(maxNameLength: 5))
        expectZIPError(.limitExceeded, archive, limits: ZIPLimits(maxArchiveSize: 100))
        #expect(throws: Never.self) { try readAll(archive, limits: .fpsV2) }
    }

    @Test(arguments: [Array("../x".utf8), Array("a/../../x".utf8), Array("..".utf8), Array("/abs".utf8),
                      Array("a\\b".utf8), Array("..\\x".utf8), [], Array("a//b".utf8), Array("./a".utf8),
                      [UInt8(ascii: "a"), 0, UInt8(ascii: "b")], [0xFF, 0xFE], Array("C:x".utf8)])
    func unsafeNamesAreRefused(_ name: [UInt8]) throws {
        var e = RawEntry("x", stored: [1])
        e.name = name
        expectZIPError(.unsafeName, RawZIP.build([RawEntry("fine", stored: [2]), e]))
    }

    @Test func duplicateNames() {
        expectZIPError(.duplicateName, RawZIP.build([RawEntry("same", stored: [1]), RawEntry("same", stored: [2])]))
    }

    @Test func deflateBombIsStoppedAtTheDeclaredSize() throws {
        var bomb = RawEntry("bomb", deflating: [UInt8](repeating: 0, count: 4 << 20))
        bomb.uncompressedSize = 1_000
        #expect(bomb.payload.count < 10_000)
        let bytes = RawZIP.build([bomb])
        expectZIPError(.sizeMismatch, bytes)
        // Streaming sees at most the declared size before the failure.
        let reader = try ZIPReader(data: bytes)
        let stream = try reader.stream(reader.entries[0], chunkSize: 256)
        var delivered = 0
        do {
            while let chunk = try stream.next() { delivered += chunk.count }
            Issue.record("the bomb was not stopped")
        } catch {
            #expect(error.code == .sizeMismatch)
        }
        #expect(delivered <= 1_000)
        #expect(throws: ZIPError(.sizeMismatch, "")) { try stream.next() }   // the failure sticks

        var short = RawEntry("short", deflating: TestData.text(1, repeat: 10))
        short.uncompressedSize += 1
        expectZIPError(.sizeMismatch, RawZIP.build([short]))
    }

    @Test func corruptDeflate() {
        var garbage = RawEntry("g", deflating: TestData.text(1, repeat: 50))
        garbage.payload = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        expectZIPError(.badCompression, RawZIP.build([garbage]))
        var cut = RawEntry("c", deflating: TestData.text(1, repeat: 50))
        cut.payload.removeLast(4)
        expectZIPError(.badCompression, RawZIP.build([cut]))
        var trailing = RawEntry("t", deflating: TestData.text(1, repeat: 50))
        trailing.payload += [1, 2, 3]
        expectZIPError(.badCompression, RawZIP.build([trailing]))
    }

    @Test func unsupportedFeatures() {
        var encrypted = RawEntry("e", stored: [1, 2, 3])
        encrypted.flags = 1
        expectZIPError(.unsupported, RawZIP.build([encrypted]))
        var bzip2 = RawEntry("b", stored: [1, 2, 3])
        bzip2.method = 12
        expectZIPError(.unsupported, RawZIP.build([bzip2]))
    }

    @Test func signaturesAndEndRecord() throws {
        expectZIPError(.badSignature, TestData.bytes(count: 1_000, seed: 8))
        expectZIPError(.truncated, [])
        let base = ArchiveBytes(bytes: try Self.sample())
        var central = base; central.bytes[central.central(2) + 1] = 0
        expectZIPError(.badSignature, central.bytes)
        // A comment is fine when its length is exact, and refused otherwise.
        var commented = base.bytes
        commented[base.eocd + 20] = 5
        commented += Array("hello".utf8)
        let reader = try ZIPReader(data: commented)
        #expect(reader.comment == Data("hello".utf8))
        #expect(throws: ZIPError(.notExactLayout, "")) { try reader.verifyExactLayout() }
        expectZIPError(.badSignature, commented + [0])
        #expect(throws: Never.self) { try readAll(RawZIP.build([])) }
    }

    @Test func oneEntryOfALargeArchiveReadsOnlyThatEntry() throws {
        let entries = (0..<50).map { ("seg\($0).m4s", TestData.bytes(count: 10_000, seed: UInt64($0)), ZIPCompressionMethod.stored) }
        let archive = try makeArchive(layout: .exact, entries)
        let source = CountingSource(archive)
        let reader = try ZIPReader(source: source, limits: .fpsV2)
        let readsAtOpen = source.reads.count
        let target = try #require(reader.entry(named: "seg25.m4s"))
        #expect(try reader.read(target) == Data(entries[25].1))
        let local = target.localHeaderOffset
        let end = try reader.dataRange(for: target).upperBound
        for range in source.reads.dropFirst(readsAtOpen) {
            #expect(range.lowerBound >= local && range.upperBound <= end)
        }
        let touched = source.reads.dropFirst(readsAtOpen).reduce(0) { $0 + $1.count }
        #expect(touched < 10_000 * 2 + 200)
    }

    @Test func streamingReadInChunks() throws {
        let data = TestData.bytes(count: 100_003, seed: 6)
        let archive = try makeArchive([("s", data, .stored), ("d", data, .deflate)])
        let reader = try ZIPReader(data: archive)
        for entry in reader.entries {
            let stream = try reader.stream(entry, chunkSize: 7_919)
            var collected = Data()
            var sizes: [Int] = []
            while let chunk = try stream.next() { collected.append(chunk); sizes.append(chunk.count) }
            #expect(collected == Data(data))
            #expect(sizes.allSatisfy { $0 > 0 && $0 <= 7_919 })
            #expect(try stream.next() == nil)
        }
        #expect(throws: ZIPError(.invalidArgument, "")) { try reader.stream(reader.entries[0], chunkSize: 0) }
    }

    @Test func entriesFromAnotherArchiveAreRefused() throws {
        let one = try ZIPReader(data: try Self.sample())
        let other = try ZIPReader(data: try makeArchive([("zzz", [1], .stored)]))
        #expect(throws: ZIPError(.notFound, "")) { try other.read(one.entries[3]) }
    }

    @Test func zip64EntryPastFourGiBFromSparseSource() throws {
        let source = SparseSource.make()
        #expect(source.size > 5 << 30)
        let reader = try ZIPReader(source: source)
        #expect(reader.isZIP64)
        let big = try #require(reader.entry(named: "big.bin"))
        let small = try #require(reader.entry(named: "small.txt"))
        #expect(big.uncompressedSize == SparseSource.bigSize)
        #expect(small.localHeaderOffset > 0xFFFF_FFFF)
        #expect(try reader.read(small) == Data(SparseSource.smallData))
        // The big entry streams lazily: the first chunk without reading the rest.
        let stream = try reader.stream(big, chunkSize: 1 << 20)
        #expect(try stream.next() == Data(count: 1 << 20))
        #expect(try reader.dataRange(for: big).count == SparseSource.bigSize)
        #expect(throws: ZIPError(.unsupported, "")) { try ZIPReader(source: source, limits: ZIPLimits(allowZIP64: false)) }
        #expect(throws: ZIPError(.limitExceeded, "")) { try ZIPReader(source: source, limits: .fpsV2) }
        #expect(throws: ZIPError(.entryTooLarge, "")) { try ZIPReader(source: source, limits: ZIPLimits(maxEntrySize: 4 << 30)) }
    }

    @Test func exactLayoutViolations() throws {
        let good = try makeArchive(layout: .exact, [("a", [1, 2, 3], .stored), ("b", [4, 5], .stored)])
        try ZIPReader(data: good).verifyExactLayout()
        // A gap: shift entry b by inserting a byte before its header and fixing the offsets.
        var g = ArchiveBytes(bytes: good)
        let bLocal = g.local(1)
        g.set32(g.central(1) + 42, UInt32(bLocal + 1))
        g.set32(g.eocd + 16, UInt32(g.cdOffset + 1))
        g.bytes.insert(0, at: bLocal)
        let gapped = try ZIPReader(data: g.bytes)
        #expect(try gapped.read(named: "b") == Data([4, 5]))
        #expect(throws: ZIPError(.notExactLayout, "")) { try gapped.verifyExactLayout() }
        let deflated = try makeArchive(layout: .exact, [("a", TestData.text(1, repeat: 9), .deflate)])
        #expect(throws: ZIPError(.notExactLayout, "")) { try ZIPReader(data: deflated).verifyExactLayout() }
        try ZIPReader(data: deflated).verifyExactLayout(storedOnly: false)
    }
}
