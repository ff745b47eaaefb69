import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MediaDRMZIP

@Suite struct ZIPWriterTests {
    @Test func roundTripManyEntries() throws {
        var expected: [(String, [UInt8], ZIPCompressionMethod)] = []
        for i in 0..<300 {
            let data = i % 3 == 0 ? TestData.bytes(count: (i * 53) % 4_000, seed: UInt64(i)) : TestData.text(i, repeat: i % 40)
            expected.append(("dir\(i % 7)/file-\(i).bin", data, i % 2 == 0 ? .stored : .deflate))
        }
        expected.append(("empty-dir/", [], .stored))
        expected.append(("üñíçødé/名前.txt", Array("unicode".utf8), .deflate))
        let archive = try makeArchive(expected)
        let reader = try ZIPReader(data: archive)
        #expect(reader.entries.count == expected.count)
        #expect(!reader.isZIP64)
        for (entry, (name, data, method)) in zip(reader.entries, expected) {
            #expect(entry.name == name)
            #expect(entry.compressionMethod == method)
            #expect(entry.uncompressedSize == UInt64(data.count))
            #expect(entry.crc32 == CRC32.checksum(data))
            #expect(try reader.read(entry) == Data(data))
        }
        #expect(reader.entry(named: "empty-dir/")?.isDirectory == true)
        #expect(try reader.read(named: "dir3/file-3.bin") == Data(expected[3].1))
        #expect(throws: ZIPError(.notFound, "")) { try reader.read(named: "absent") }
    }

    @Test func exactLayoutBytes() throws {
        let entries: [(String, [UInt8])] = [("manifest.json", Array("{\"a\":1}".utf8)),
                                            ("master.m3u8", Array("#EXTM3U\n".utf8)),
                                            ("video-segment0.m4s", TestData.bytes(count: 1_000, seed: 9)),
                                            ("empty.bin", [])]
        let bytes = try makeArchive(layout: .exact, entries.map { ($0.0, $0.1, .stored) })
        let a = ArchiveBytes(bytes: bytes)
        var offset = 0
        var localOffsets: [Int] = []
        for (name, data) in entries {
            localOffsets.append(offset)
            #expect(a.u32(offset) == 0x0403_4b50)
            #expect(a.u16(offset + 4) == 20)                      // version needed
            #expect(a.u16(offset + 6) == 0)                       // flags
            #expect(a.u16(offset + 8) == 0)                       // stored
            #expect(a.u32(offset + 14) == CRC32.checksum(data))
            #expect(a.u32(offset + 18) == UInt32(data.count))
            #expect(a.u32(offset + 22) == UInt32(data.count))
            #expect(a.u16(offset + 26) == UInt16(name.utf8.count))
            #expect(a.u16(offset + 28) == 0)                      // no extra field
            #expect(Array(bytes[(offset + 30)..<(offset + 30 + name.utf8.count)]) == Array(name.utf8))
            let dataStart = offset + 30 + name.utf8.count
            #expect(Array(bytes[dataStart..<(dataStart + data.count)]) == data)
            offset = dataStart + data.count                       // the next header starts right here
        }
        #expect(a.cdOffset == offset)                             // directory right after the last entry
        var p = offset
        for (i, (name, _)) in entries.enumerated() {
            #expect(a.u32(p) == 0x0201_4b50)
            #expect(a.u16(p + 4) == 0x0314 && a.u16(p + 6) == 20)  // versions fixed: made by Unix 2.0, needs 2.0
            #expect(a.u16(p + 8) == 0)
            #expect(a.u16(p + 30) == 0 && a.u16(p + 32) == 0)      // no extra, no comment
            #expect(a.u16(p + 34) == 0)                            // disk 0
            #expect(a.u32(p + 42) == UInt32(localOffsets[i]))
            p += 46 + name.utf8.count
        }
        #expect(p == a.eocd)                                      // end record right after the directory
        #expect(a.u32(p) == 0x0605_4b50)
        #expect(a.u16(p + 4) == 0 && a.u16(p + 6) == 0)
        #expect(a.u16(p + 8) == UInt16(entries.count) && a.u16(p + 10) == UInt16(entries.count))
        #expect(Int(a.u32(p + 12)) == a.eocd - offset)
        #expect(a.u16(p + 20) == 0)
        #expect(p + 22 == bytes.count)
        let reader = try ZIPReader(data: bytes, limits: .fpsV2)
        try reader.verifyExactLayout()
    }

    @Test func exactLayoutStreamingMatchesWholeEntries() throws {
        let parts = [TestData.bytes(count: 5_000, seed: 4), TestData.bytes(count: 70_000, seed: 5)]
        let whole = try makeArchive(layout: .exact, [("a.m4s", parts[0], .stored), ("b.m4s", parts[1], .stored)])

        // Seekable sink, nothing declared: the local header is patched after the data.
        let memory = ZIPMemorySink()
        let patched = try ZIPWriter(sink: memory, layout: .exact)
        for (i, part) in parts.enumerated() {
            try patched.beginEntry(name: i == 0 ? "a.m4s" : "b.m4s")
            for start in stride(from: 0, to: part.count, by: 4_096) {
                try patched.write(part[start..<min(start + 4_096, part.count)])
            }
            try patched.endEntry()
        }
        try patched.finish()
        #expect([UInt8](memory.data) == whole)

        // Append-only sink: size and CRC must be declared.
        let pipe = AppendOnlySink()
        let declared = try ZIPWriter(sink: pipe, layout: .exact)
        #expect(throws: ZIPError(.invalidArgument, "")) { try declared.beginEntry(name: "a.m4s") }
        #expect(throws: ZIPError(.invalidArgument, "")) { try declared.beginEntry(name: "a.m4s", uncompressedSize: 5_000) }
        for (i, part) in parts.enumerated() {
            try declared.beginEntry(name: i == 0 ? "a.m4s" : "b.m4s", uncompressedSize: UInt64(part.count),
                                    crc32: CRC32.checksum(part))
            try declared.write(part)
            try declared.endEntry()
        }
        try declared.finish()
        #expect(pipe.bytes == whole)
    }

    @Test func exactLayoutRefusals() throws {
        #expect(throws: ZIPError(.invalidArgument, "")) { try ZIPWriter(sink: ZIPMemorySink(), layout: .exact, allowZIP64: true) }
        #expect(throws: ZIPError(.invalidArgument, "")) { try ZIPWriter(sink: ZIPMemorySink(), layout: .exact, forceZIP64: true) }
        let writer = try ZIPWriter(sink: ZIPMemorySink(), layout: .exact)
        #expect(throws: ZIPError(.unsafeName, "")) { try writer.addEntry(name: "naïve.txt", data: [1]) }
        try writer.addEntry(name: "ok.txt", data: [1])
        try writer.finish()
    }

    @Test func streamingWithDataDescriptor() throws {
        let data = TestData.text(1, repeat: 5_000)
        let sink = AppendOnlySink()
        let writer = try ZIPWriter(sink: sink)
        try writer.beginEntry(name: "stored.txt")
        try writer.write(data[0..<1_000]); try writer.write(data[1_000...])
        try writer.endEntry()
        try writer.beginEntry(name: "deflated.txt", method: .deflate)
        for start in stride(from: 0, to: data.count, by: 777) { try writer.write(data[start..<min(start + 777, data.count)]) }
        try writer.endEntry()
        try writer.addEntry(name: "plain.txt", data: [1, 2, 3])
        try writer.finish()
        let reader = try ZIPReader(data: sink.bytes)
        #expect(reader.entries[0].usesDataDescriptor && reader.entries[1].usesDataDescriptor)
        #expect(!reader.entries[2].usesDataDescriptor)
        #expect(try reader.read(reader.entries[0]) == Data(data))
        #expect(try reader.read(reader.entries[1]) == Data(data))
        #expect(reader.entries[1].compressedSize < UInt64(data.count))
        #expect(try reader.read(reader.entries[2]) == Data([1, 2, 3]))
        #expect(throws: ZIPError(.notExactLayout, "")) { try reader.verifyExactLayout() }
    }

    @Test func declaredSizeAndCRCAreEnforced() throws {
        let w1 = try ZIPWriter(sink: ZIPMemorySink())
        try w1.beginEntry(name: "a", uncompressedSize: 3, crc32: CRC32.checksum([1, 2, 3]))
        #expect(throws: ZIPError(.sizeMismatch, "")) { try w1.write([1, 2, 3, 4]) }
        // A failed writer refuses everything after.
        #expect(throws: ZIPError(.invalidArgument, "")) { try w1.finish() }

        let w2 = try ZIPWriter(sink: ZIPMemorySink())
        try w2.beginEntry(name: "a", uncompressedSize: 3, crc32: 0xDEAD_BEEF)
        try w2.write([1, 2, 3])
        #expect(throws: ZIPError(.crcMismatch, "")) { try w2.endEntry() }

        let w3 = try ZIPWriter(sink: ZIPMemorySink())
        try w3.beginEntry(name: "a", method: .deflate, uncompressedSize: 10)
        try w3.write([1, 2, 3])
        #expect(throws: ZIPError(.sizeMismatch, "")) { try w3.endEntry() }
    }

    @Test func stateErrors() throws {
        let writer = try ZIPWriter(sink: ZIPMemorySink())
        #expect(throws: ZIPError(.invalidArgument, "")) { try writer.write([1]) }
        #expect(throws: ZIPError(.invalidArgument, "")) { try writer.endEntry() }
        try writer.beginEntry(name: "a")
        #expect(throws: ZIPError(.invalidArgument, "")) { try writer.addEntry(name: "b", data: [1]) }
        #expect(throws: ZIPError(.invalidArgument, "")) { try writer.finish() }
        try writer.endEntry()
        try writer.finish()
        #expect(throws: ZIPError(.invalidArgument, "")) { try writer.addEntry(name: "c", data: [1]) }
    }

    @Test(arguments: ["../evil", "a/../../b", "/etc/passwd", "a\\b", "", "a//b", "./a", "a/./b", "C:/x", "nul\u{0}x", "tab\tx"])
    func writerRefusesUnsafeNames(_ name: String) throws {
        let writer = try ZIPWriter(sink: ZIPMemorySink())
        #expect(throws: ZIPError(.unsafeName, "")) { try writer.addEntry(name: name, data: [1]) }
        #expect(throws: ZIPError(.unsafeName, "")) { try writer.beginEntry(name: name) }
        // A refused name does not poison the writer.
        try writer.addEntry(name: "fine", data: [1])
    }

    @Test func writerRefusesDuplicateNames() throws {
        let writer = try ZIPWriter(sink: ZIPMemorySink())
        try writer.addEntry(name: "a", data: [1])
        #expect(throws: ZIPError(.duplicateName, "")) { try writer.addEntry(name: "a", data: [2]) }
        #expect(throws: ZIPError(.duplicateName, "")) { try writer.beginEntry(name: "a") }
    }

    @Test func forcedZIP64RoundTrip() throws {
        let entries: [(String, [UInt8], ZIPCompressionMethod)] = [
            ("a.bin", TestData.bytes(count: 3_000, seed: 11), .stored),
            ("b.txt", TestData.text(2, repeat: 300), .deflate),
            ("c/", [], .stored),
        ]
        let bytes = try makeArchive(forceZIP64: true, entries)
        let a = ArchiveBytes(bytes: bytes)
        #expect(a.u16(a.eocd + 10) == 0xFFFF && a.u32(a.eocd + 16) == 0xFFFF_FFFF)
        #expect(a.u32(a.eocd - 20) == 0x0706_4b50)             // locator right before the end record
        #expect(a.u32(a.eocd - 20 - 56) == 0x0606_4b50)        // ZIP64 end record before it
        #expect(a.u16(0 + 28) == 20)                           // local ZIP64 extra
        let reader = try ZIPReader(data: bytes)
        #expect(reader.isZIP64)
        for (entry, (name, data, _)) in zip(reader.entries, entries) {
            #expect(entry.name == name)
            #expect(try reader.read(entry) == Data(data))
        }
        expectZIPError(.unsupported, bytes, limits: .fpsV2)
        #expect(throws: ZIPError(.notExactLayout, "")) { try reader.verifyExactLayout() }
    }

    @Test func entriesOfFourGiBNeedZIP64() throws {
        for layout in [ZIPWriter.Layout.standard, .exact] {
            let writer = try ZIPWriter(sink: ZIPMemorySink(), layout: layout)
            #expect(throws: ZIPError(.zip64Required, "")) { try writer.beginEntry(name: "big", uncompressedSize: 0xFFFF_FFFF) }
            #expect(throws: ZIPError(.zip64Required, "")) {
                try writer.beginEntry(name: "big", uncompressedSize: 5 << 30, crc32: 0)
            }
            try writer.addEntry(name: "small", data: [1])       // refused before any byte: still usable
            try writer.finish()
        }
        // Allowed: the declared size selects a ZIP64 local header up front.
        let sink = AppendOnlySink()
        let writer = try ZIPWriter(sink: sink, allowZIP64: true)
        try writer.beginEntry(name: "big", uncompressedSize: 5 << 30, crc32: 0)
        #expect(ArchiveBytes(bytes: sink.bytes).u32(18) == 0xFFFF_FFFF)
        #expect(ArchiveBytes(bytes: sink.bytes).u16(28) == 20)
    }

    @Test func moreThan65535EntriesNeedZIP64() throws {
        let refusing = try ZIPWriter(sink: ZIPMemorySink())
        for i in 0..<65_535 { try refusing.addEntry(name: "e\(i)", data: EmptyCollection<UInt8>()) }
        #expect(throws: ZIPError(.zip64Required, "")) { try refusing.addEntry(name: "one-more", data: [0]) }

        let bytes = try Self.manyEntries(70_000)
        let reader = try ZIPReader(data: bytes)
        #expect(reader.isZIP64)
        #expect(reader.entries.count == 70_000)
        #expect(try reader.read(named: "e69999") == Data("69999".utf8))
        expectZIPError(.tooManyEntries, bytes, limits: ZIPLimits(maxEntries: 69_999))
    }

    static func manyEntries(_ count: Int) throws -> [UInt8] {
        let sink = ZIPMemorySink()
        let writer = try ZIPWriter(sink: sink, allowZIP64: true)
        for i in 0..<count { try writer.addEntry(name: "e\(i)", data: Array("\(i)".utf8)) }
        try writer.finish()
        return [UInt8](sink.data)
    }

    @Test func bigStreamedDeflateEntryInChunks() throws {
        var data = [UInt8]()
        for i in 0..<64 { data += TestData.text(i, repeat: 400) + TestData.bytes(count: 2_000, seed: UInt64(i)) }
        let sink = ZIPMemorySink()
        let writer = try ZIPWriter(sink: sink)
        try writer.beginEntry(name: "big.bin", method: .deflate, uncompressedSize: UInt64(data.count))
        for start in stride(from: 0, to: data.count, by: 10_000) { try writer.write(data[start..<min(start + 10_000, data.count)]) }
        try writer.endEntry()
        try writer.finish()
        let reader = try ZIPReader(data: sink.data)
        let entry = try #require(reader.entry(named: "big.bin"))
        #expect(!entry.usesDataDescriptor)
        var chunks: [Data] = []
        try reader.readStream(entry, chunkSize: 4_093) { chunks.append($0) }
        #expect(chunks.allSatisfy { $0.count <= 4_093 })
        #expect(chunks.count >= data.count / 4_093)
        #expect(Data(chunks.joined()) == Data(data))
    }

    @Test func fileSinkAndFileSource() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.zip").path
        let sink = try ZIPFileSink(path: path)
        #expect(sink.supportsPatching)
        let writer = try ZIPWriter(sink: sink, layout: .exact)
        try writer.addEntry(name: "one", data: TestData.bytes(count: 100, seed: 1))
        try writer.beginEntry(name: "two")                     // patched in the file
        try writer.write(TestData.bytes(count: 50_000, seed: 2))
        try writer.endEntry()
        let size = try writer.finish()
        let reader = try ZIPReader(path: path, limits: .fpsV2)
        #expect(reader.source.size == size)
        try reader.verifyExactLayout()
        #expect(try reader.read(named: "two") == Data(TestData.bytes(count: 50_000, seed: 2)))
    }

    @Test func atomicFileAppearsOnlyOnSuccess() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("pkg.zip").path
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try ZIPWriter.writeAtomically(toPath: path, layout: .exact) { writer in
                try writer.addEntry(name: "a", data: [1, 2, 3])
                throw Boom()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        #expect(throws: ZIPError(.duplicateName, "")) {
            try ZIPWriter.writeAtomically(toPath: path) { writer in
                try writer.addEntry(name: "a", data: [1])
                try writer.addEntry(name: "a", data: [2])
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        try ZIPWriter.writeAtomically(toPath: path, layout: .exact) { writer in
            try writer.addEntry(name: "a", data: [1, 2, 3])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pkg.zip"])
        #expect(try ZIPReader(path: path).read(named: "a") == Data([1, 2, 3]))

        // Released without commit: the temporary file goes away.
        do {
            let file = try ZIPAtomicFile(path: path)
            #expect(FileManager.default.fileExists(atPath: file.temporaryPath))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pkg.zip"])
    }

    /// A pipe, device or directory at the destination is never renamed over.
    @Test func atomicFileRefusesANonRegularDestination() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zip-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ZIPError(.invalidArgument, "")) { try ZIPAtomicFile(path: fifo) }
        #expect(throws: ZIPError(.invalidArgument, "")) { try ZIPAtomicFile(path: dir.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["pipe"])
    }

    /// A destination in a directory that does not exist: the error names the path and the OS's
    /// reason, so the user knows what to fix.
    @Test func atomicFileInAMissingDirectoryNamesThePathAndTheCause() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zip-missing-\(UUID().uuidString)/out.tdf").path
        let error = #expect(throws: ZIPError(.io, "")) { try ZIPAtomicFile(path: path) }
        #expect(error?.reason == "cannot write output '\(path)': No such file or directory")
    }

    @Test func failingSinkBecomesIOError() throws {
        final class FailingSink: ZIPSink {
            struct Full: Error {}
            var budget = 100
            func write(_ bytes: UnsafeRawBufferPointer) throws {
                budget -= bytes.count
                if budget < 0 { throw Full() }
            }
            var supportsPatching: Bool { false }
            func patch(at offset: UInt64, with bytes: UnsafeRawBufferPointer) throws {}
        }
        let writer = try ZIPWriter(sink: FailingSink())
        do {
            try writer.addEntry(name: "a", data: TestData.bytes(count: 500, seed: 1))
            Issue.record("expected an io error")
        } catch {
            #expect(error.code == .io)
            #expect(error.underlying is FailingSink.Full)
        }
    }
}
