import Foundation
import Testing
@testable import MediaDRMZIP
import CZlib

/// Helpers shared by the ZIP tests: deterministic content, raw archive construction for
/// malformed inputs, byte patching, and running python3 / unzip.
enum TestData {
    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    static func bytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var out = [UInt8]()
        out.reserveCapacity(count)
        for _ in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out.append(UInt8(truncatingIfNeeded: state))
        }
        return out
    }

    /// Compressible text.
    static func text(_ i: Int, repeat n: Int) -> [UInt8] {
        Array(String(repeating: "entry \(i) says hello; ", count: n).utf8)
    }

    static func rawDeflate(_ input: [UInt8]) -> [UInt8] {
        var strm = z_stream()
        _ = mediadrm_deflateInit2(&strm, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY)
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&strm, uLong(input.count))) + 64)
        var input = input
        let produced: Int = input.withUnsafeMutableBytes { inRaw in
            out.withUnsafeMutableBytes { outRaw in
                strm.next_in = inRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                strm.avail_in = uInt(inRaw.count)
                strm.next_out = outRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                strm.avail_out = uInt(outRaw.count)
                _ = deflate(&strm, Z_FINISH)
                return outRaw.count - Int(strm.avail_out)
            }
        }
        deflateEnd(&strm)
        return Array(out[0..<produced])
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 { CRC32.checksum(bytes) }
}

/// One entry of a hand-built archive; every field can be set to something invalid.
struct RawEntry {
    var name: [UInt8]
    var payload: [UInt8]               // bytes as stored (already compressed for method 8)
    var method: UInt16 = 0
    var flags: UInt16 = 0
    var crc: UInt32
    var uncompressedSize: UInt32

    init(_ name: String, stored data: [UInt8]) {
        self.name = Array(name.utf8)
        self.payload = data
        self.crc = TestData.crc(data)
        self.uncompressedSize = UInt32(data.count)
    }

    init(_ name: String, deflating data: [UInt8]) {
        self.name = Array(name.utf8)
        self.payload = TestData.rawDeflate(data)
        self.method = 8
        self.crc = TestData.crc(data)
        self.uncompressedSize = UInt32(data.count)
    }
}

/// Builds ZIP32 archives byte by byte, independent of `ZIPWriter`.
enum RawZIP {
    static func build(_ entries: [RawEntry], count: UInt16? = nil) -> [UInt8] {
        var out = [UInt8]()
        var offsets: [UInt32] = []
        for e in entries {
            offsets.append(UInt32(out.count))
            out.le32(0x0403_4b50); out.le16(20); out.le16(e.flags); out.le16(e.method); out.le16(0); out.le16(0x21)
            out.le32(e.crc); out.le32(UInt32(e.payload.count)); out.le32(e.uncompressedSize)
            out.le16(UInt16(e.name.count)); out.le16(0)
            out += e.name
            out += e.payload
        }
        let cdOffset = out.count
        for (i, e) in entries.enumerated() {
            out.le32(0x0201_4b50); out.le16(20); out.le16(20); out.le16(e.flags); out.le16(e.method); out.le16(0); out.le16(0x21)
            out.le32(e.crc); out.le32(UInt32(e.payload.count)); out.le32(e.uncompressedSize)
            out.le16(UInt16(e.name.count)); out.le16(0); out.le16(0); out.le16(0); out.le16(0); out.le32(0)
            out.le32(offsets[i])
            out += e.name
        }
        let cdSize = out.count - cdOffset
        out.le32(0x0605_4b50); out.le16(0); out.le16(0)
        out.le16(count ?? UInt16(entries.count)); out.le16(count ?? UInt16(entries.count))
        out.le32(UInt32(cdSize)); out.le32(UInt32(cdOffset)); out.le16(0)
        return out
    }
}

/// Field access on a finished archive, to corrupt it precisely.
struct ArchiveBytes {
    var bytes: [UInt8]

    var eocd: Int { bytes.count - 22 }
    var cdOffset: Int { Int(u32(eocd + 16)) }

    func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    mutating func set16(_ at: Int, _ v: UInt16) { bytes[at] = UInt8(v & 0xFF); bytes[at + 1] = UInt8(v >> 8) }
    mutating func set32(_ at: Int, _ v: UInt32) { set16(at, UInt16(v & 0xFFFF)); set16(at + 2, UInt16(v >> 16)) }

    /// Offset of the central record of entry `index`.
    func central(_ index: Int) -> Int {
        var p = cdOffset
        for _ in 0..<index { p += 46 + Int(u16(p + 28)) + Int(u16(p + 30)) + Int(u16(p + 32)) }
        return p
    }

    /// Offset of the local header of entry `index`.
    func local(_ index: Int) -> Int { Int(u32(central(index) + 42)) }
}

extension Array where Element == UInt8 {
    mutating func le16(_ v: UInt16) { append(UInt8(v & 0xFF)); append(UInt8(v >> 8)) }
    mutating func le32(_ v: UInt32) { le16(UInt16(v & 0xFFFF)); le16(UInt16(v >> 16)) }
    mutating func le64(_ v: UInt64) { le32(UInt32(v & 0xFFFF_FFFF)); le32(UInt32(v >> 32)) }
}

/// Opens and reads every entry; the typed error is what the tests look at.
@discardableResult
func readAll(_ bytes: [UInt8], limits: ZIPLimits = .default) throws(ZIPError) -> [String: Data] {
    let reader = try ZIPReader(data: bytes, limits: limits)
    var out: [String: Data] = [:]
    for entry in reader.entries { out[entry.name] = try reader.read(entry) }
    return out
}

func expectZIPError(_ code: ZIPError.Code, _ bytes: [UInt8], limits: ZIPLimits = .default,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try readAll(bytes, limits: limits)
        Issue.record("expected ZIPError.\(code.rawValue), got success", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error.reason)", sourceLocation: sourceLocation)
    }
}

func makeArchive(layout: ZIPWriter.Layout = .standard, allowZIP64: Bool = false, forceZIP64: Bool = false,
                 _ entries: [(String, [UInt8], ZIPCompressionMethod)]) throws -> [UInt8] {
    let sink = ZIPMemorySink()
    let writer = try ZIPWriter(sink: sink, layout: layout, allowZIP64: allowZIP64, forceZIP64: forceZIP64)
    for (name, data, method) in entries { try writer.addEntry(name: name, data: data, method: method) }
    try writer.finish()
    return [UInt8](sink.data)
}

/// A sink that cannot seek back, like a pipe.
final class AppendOnlySink: ZIPSink {
    var bytes: [UInt8] = []
    func write(_ raw: UnsafeRawBufferPointer) throws { bytes += raw }
    var supportsPatching: Bool { false }
    func patch(at offset: UInt64, with bytes: UnsafeRawBufferPointer) throws {
        Issue.record("patch called on an append-only sink")
    }
}

enum Tools {
    struct Output { let status: Int32; let stdoutData: Data; let stderr: String; var stdout: String { String(decoding: stdoutData, as: UTF8.self) } }

    static var python: String? {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return "/usr/bin/python3" }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let p = "\(dir)/python3"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static var unzip: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") ? "/usr/bin/unzip" : nil
    }

    /// Info-ZIP's unzip, or an error naming the missing prerequisite (`make deps` installs it).
    static func requireUnzip() throws -> String {
        guard let unzip else { throw ZIPError(.io, "/usr/bin/unzip not found: install unzip (make deps) to run the interoperability tests") }
        return unzip
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var stderrData = Data()
        group.enter()
        DispatchQueue.global().async {
            stderrData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdoutData: stdoutData,
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }

    static func python(_ script: String, _ arguments: [String] = []) throws -> Output {
        guard let python else { throw ZIPError(.io, "python3 not found: install python3 (make deps) to run the interoperability tests") }
        return try run(python, ["-c", script] + arguments)
    }
}

/// A fresh directory under the system temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ziptests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
