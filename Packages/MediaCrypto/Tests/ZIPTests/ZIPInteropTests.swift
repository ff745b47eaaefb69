import Foundation
import Testing
@testable import MediaDRMZIP

/// Cross-checks with independent implementations: Python's zipfile and Info-ZIP `unzip -t` read
/// what this module writes, and this module reads what Python writes. Both are prerequisites of
/// `make test` (it installs them): a missing one fails every case here, it never skips them.
@Suite struct ZIPInteropTests {
    static let pythonList = """
    import sys, zipfile, zlib
    with zipfile.ZipFile(sys.argv[1]) as z:
        bad = z.testzip()
        if bad is not None:
            print("BAD", bad)
            sys.exit(2)
        for i in z.infolist():
            d = z.read(i)
            print(f"{i.filename}\\t{len(d)}\\t{zlib.crc32(d):08x}\\t{i.compress_type}")
    """

    static let pythonWrite = """
    import sys, zipfile
    path, mode = sys.argv[1], sys.argv[2]
    def content(i):
        return (f"python entry {i} " * (i * 13)).encode()
    if mode == "many":
        with zipfile.ZipFile(path, "w") as z:
            for i in range(70000):
                z.writestr(f"m{i}", str(i))
        sys.exit(0)
    comp = zipfile.ZIP_STORED if mode == "stored" else zipfile.ZIP_DEFLATED
    target = sys.stdout.buffer if mode == "pipe" else path
    with zipfile.ZipFile(target, "w", compression=comp) as z:
        z.writestr("dir/", b"")
        for i in range(20):
            name = f"dir/e{i}.txt"
            if mode == "zip64":
                with z.open(name, "w", force_zip64=True) as f:
                    f.write(content(i))
            else:
                z.writestr(name, content(i))
    """

    static func pythonContent(_ i: Int) -> [UInt8] {
        Array(String(repeating: "python entry \(i) ", count: i * 13).utf8)
    }

    /// Writes `bytes` to a temporary file, lists it with Python (and tests it with unzip), and
    /// compares name, size, CRC-32 and method with what the writer was given.
    static func checkWithPython(_ bytes: [UInt8], expected: [(String, [UInt8], ZIPCompressionMethod)]) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("archive.zip").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let listed = try Tools.python(pythonList, [path])
        #expect(listed.status == 0, "python: \(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        let wanted = expected.map { name, data, method in
            "\(name)\t\(data.count)\t\(String(format: "%08x", CRC32.checksum(data)))\t\(method.rawValue)"
        }
        #expect(lines == wanted)
        let tested = try Tools.run(try Tools.requireUnzip(), ["-tqq", path])
        #expect(tested.status == 0, "unzip -t: \(tested.stdout) \(tested.stderr)")
    }

    static let mixed: [(String, [UInt8], ZIPCompressionMethod)] = [
        ("manifest.json", Array("{\"k\":\"v\"}".utf8), .stored),
        ("text/long.txt", TestData.text(3, repeat: 500), .deflate),
        ("random.bin", TestData.bytes(count: 20_000, seed: 12), .deflate),
        ("empty.txt", [], .stored),
        ("folder/", [], .stored),
        ("naïve/名前.txt", Array("unicode name".utf8), .stored),
    ]

    @Test func standardArchiveReadByPython() throws {
        try Self.checkWithPython(try makeArchive(Self.mixed), expected: Self.mixed)
    }

    @Test func exactArchiveReadByPython() throws {
        let entries = Self.mixed.filter { !$0.0.contains("ï") && !$0.0.hasSuffix("/") }.map { ($0.0, $0.1, ZIPCompressionMethod.stored) }
        try Self.checkWithPython(try makeArchive(layout: .exact, entries), expected: entries)
    }

    @Test func dataDescriptorArchiveReadByPython() throws {
        let sink = AppendOnlySink()
        let writer = try ZIPWriter(sink: sink)
        for (name, data, method) in Self.mixed {
            try writer.beginEntry(name: name, method: method)
            for start in stride(from: 0, to: data.count, by: 1_000) { try writer.write(data[start..<min(start + 1_000, data.count)]) }
            try writer.endEntry()
        }
        try writer.finish()
        try Self.checkWithPython(sink.bytes, expected: Self.mixed)
    }

    @Test func streamedZIP64ArchiveReadByPython() throws {
        // allowZIP64 with unknown sizes: local ZIP64 extras, data descriptors with 8-byte sizes.
        let sink = AppendOnlySink()
        let writer = try ZIPWriter(sink: sink, allowZIP64: true)
        for (name, data, method) in Self.mixed {
            try writer.beginEntry(name: name, method: method)
            try writer.write(data)
            try writer.endEntry()
        }
        try writer.finish()
        try Self.checkWithPython(sink.bytes, expected: Self.mixed)
        #expect(try readAll(sink.bytes).count == Self.mixed.count)
    }

    @Test func forcedZIP64ArchiveReadByPython() throws {
        try Self.checkWithPython(try makeArchive(forceZIP64: true, Self.mixed), expected: Self.mixed)
    }

    @Test func manyEntriesZIP64ArchiveReadByPython() throws {
        let bytes = try ZIPWriterTests.manyEntries(70_000)
        let expected = (0..<70_000).map { ("e\($0)", Array("\($0)".utf8), ZIPCompressionMethod.stored) }
        try Self.checkWithPython(bytes, expected: expected)
    }

    @Test(arguments: ["stored", "deflated", "zip64", "pipe"])
    func pythonArchiveReadHere(_ mode: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("py.zip").path
        let out = try Tools.python(Self.pythonWrite, [path, mode])
        #expect(out.status == 0, "python: \(out.stderr)")
        let bytes = mode == "pipe" ? [UInt8](out.stdoutData) : [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = try ZIPReader(data: bytes)
        #expect(reader.entries.count == 21)
        #expect(reader.entries[0].isDirectory)
        for i in 0..<20 {
            let entry = try #require(reader.entry(named: "dir/e\(i).txt"))
            #expect(entry.compressionMethod == (mode == "stored" ? .stored : .deflate))
            #expect(entry.usesDataDescriptor == (mode == "pipe"))
            #expect(try reader.read(entry) == Data(Self.pythonContent(i)))
        }
        if mode == "zip64" {
            // Python puts ZIP64 extras in the local headers only.
            let a = ArchiveBytes(bytes: bytes)
            #expect(a.u16(a.local(2) + 28) == 20)
            #expect(a.u16(a.central(2) + 30) == 0)
        }
    }

    @Test func pythonManyEntriesZIP64ReadHere() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("many.zip").path
        let out = try Tools.python(Self.pythonWrite, [path, "many"])
        #expect(out.status == 0, "python: \(out.stderr)")
        let reader = try ZIPReader(path: path)
        #expect(reader.isZIP64)
        #expect(reader.entries.count == 70_000)
        #expect(try reader.read(named: "m65536") == Data("65536".utf8))
    }

    @Test func sparseZIP64FileAgreesWithPython() throws {
        let sparse = SparseSource.make()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sparse.zip").path
        FileManager.default.createFile(atPath: path, contents: Data(sparse.prefix))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(sparse.prefix.count) + sparse.zeros)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(sparse.suffix))
        try handle.close()
        let reader = try ZIPReader(path: path)
        #expect(try reader.read(named: "small.txt") == Data(SparseSource.smallData))
        let script = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            i = z.getinfo("big.bin")
            print(i.file_size, z.getinfo("small.txt").header_offset)
            sys.stdout.write(z.read("small.txt").decode())
        """
        let out = try Tools.python(script, [path])
        #expect(out.status == 0, "python: \(out.stderr)")
        let small = try #require(reader.entry(named: "small.txt"))
        #expect(out.stdout == "\(SparseSource.bigSize) \(small.localHeaderOffset)\n" + String(decoding: SparseSource.smallData, as: UTF8.self))
    }
}
