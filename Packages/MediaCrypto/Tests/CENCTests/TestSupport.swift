import Foundation
import Testing
@testable import MediaDRMCENC

/// Runs a tool, returning its exit status, standard output and standard error.
@discardableResult
func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, stdout: Data, stderr: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    // Feed standard input and drain standard error on their own threads, so no pipe fills and
    // blocks the tool.
    let writer = input.fileHandleForWriting
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        if let stdin { writer.write(stdin) }
        try? writer.close()
        group.leave()
    }
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (process.terminationStatus, outData, errData)
}

let ffmpegPath = "/usr/bin/ffmpeg"
let ffprobePath = "/usr/bin/ffprobe"
var haveFFmpeg: Bool { FileManager.default.isExecutableFile(atPath: ffmpegPath) && FileManager.default.isExecutableFile(atPath: ffprobePath) }

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cenc-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// An H.264 stream for the tests: what ffmpeg is asked to make.
struct StreamSpec: Sendable, CustomStringConvertible {
    var name: String
    var size = "176x144"
    var frames = 12
    var pixelFormat = "yuv420p"
    var profile: String? = "high"
    var x264Params: String?
    var filter: String?
    var extra: [String] = []
    var description: String { name }

    var encoderArguments: [String] {
        var args = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25"]
        if let filter { args += ["-vf", filter] }
        args += ["-frames:v", String(frames), "-pix_fmt", pixelFormat, "-c:v", "libx264"]
        if let profile { args += ["-profile:v", profile] }
        if let x264Params { args += ["-x264-params", x264Params] }
        return args + extra
    }

    static let all: [StreamSpec] = [
        StreamSpec(name: "baseline-130x74-cavlc", size: "130x74", profile: "baseline"),
        StreamSpec(name: "main-bframes", profile: "main", extra: ["-bf", "3"]),
        StreamSpec(name: "high-bframes-4slices", x264Params: "slices=4", extra: ["-bf", "3"]),
        StreamSpec(name: "high-cavlc-2slices-odd", size: "98x62", x264Params: "cabac=0:slices=2:bframes=2"),
        StreamSpec(name: "high-weightp-fade", frames: 16, x264Params: "weightp=2:bframes=3:weightb=1", filter: "fade=in:0:12"),
        StreamSpec(name: "high-ref4-pyramid", frames: 20, x264Params: "ref=4:bframes=3:b-pyramid=normal:keyint=8"),
        StreamSpec(name: "high-cqm-jvt", x264Params: "cqm=jvt:bframes=2"),
        StreamSpec(name: "high444-cqm-jvt", pixelFormat: "yuv444p", profile: "high444", x264Params: "cqm=jvt:bframes=2"),
        StreamSpec(name: "high422", pixelFormat: "yuv422p", profile: "high422", x264Params: "bframes=2:slices=3"),
        StreamSpec(name: "gray-weightp", frames: 14, pixelFormat: "gray", profile: nil, x264Params: "weightp=2", filter: "fade=in:0:10"),
        StreamSpec(name: "high10", pixelFormat: "yuv420p10le", profile: "high10", x264Params: "weightp=2:bframes=2", filter: "fade=in:0:10"),
        StreamSpec(name: "interlaced-mbaff", size: "176x144", x264Params: "interlaced=1:bframes=2"),
        StreamSpec(name: "intra-only-lossless", size: "640x360", frames: 3, profile: "high444", x264Params: "keyint=1:slices=2", extra: ["-crf", "0"]),
    ]
}

/// Raw Annex B NAL units (start codes removed) of `data`.
func annexBNALUnits(_ data: [UInt8]) -> [[UInt8]] {
    var starts: [(codeStart: Int, nalStart: Int)] = []
    var i = 0
    while i + 2 < data.count {
        if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
            let codeStart = i > 0 && data[i - 1] == 0 ? i - 1 : i
            starts.append((codeStart, i + 3))
            i += 3
        } else {
            i += 1
        }
    }
    var units: [[UInt8]] = []
    for (index, start) in starts.enumerated() {
        var end = index + 1 < starts.count ? starts[index + 1].codeStart : data.count
        while end > start.nalStart, data[end - 1] == 0 { end -= 1 }  // trailing_zero_8bits
        units.append(Array(data[start.nalStart ..< end]))
    }
    return units
}

/// `nal` with a 4-byte (or `size`-byte) big-endian length prefix.
func lengthPrefixed(_ nal: [UInt8], size: Int = 4) -> [UInt8] {
    (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: nal.count >> (8 * $0)) } + nal
}

/// One slice header as ffmpeg's `trace_headers` bitstream filter (an independent parser, CBS)
/// reports it: syntax elements by name and the bit (counted from the NAL header, in the RBSP)
/// where the slice header ends.
struct TracedSlice {
    var values: [String: Int] = [:]
    var endBit = 0
}

/// The slice headers of a raw H.264 (or, with `heading` "Slice Segment Header", HEVC) file in
/// decode order, from `ffmpeg -bsf:v trace_headers`.
func tracedSlices(of file: URL, heading: String = "Slice Header") throws -> [TracedSlice] {
    let result = try run(ffmpegPath, ["-hide_banner", "-loglevel", "trace", "-i", file.path, "-c", "copy",
                                      "-bsf:v", "trace_headers", "-f", "null", "-"])
    let text = String(decoding: result.stderr, as: UTF8.self)
    var slices: [TracedSlice] = []
    var current: TracedSlice?
    var ended = false
    for rawLine in text.split(separator: "\n") {
        guard let marker = rawLine.range(of: "[trace_headers @ ") else { continue }
        guard let close = rawLine[marker.upperBound...].firstIndex(of: "]") else { continue }
        let body = rawLine[rawLine.index(after: close)...].trimmingCharacters(in: .whitespaces)
        if body == heading {
            if let current { slices.append(current) }
            current = TracedSlice()
            ended = false
            continue
        }
        let parts = body.split(separator: " ", omittingEmptySubsequences: true)
        // "<bit> <name> <bits> = <value>"
        guard parts.count == 5, parts[3] == "=", let bit = Int(parts[0]), let value = Int(parts[4]) else {
            if current != nil, !body.isEmpty, Int(parts.first ?? "") == nil { ended = true }
            continue
        }
        guard current != nil, !ended else { continue }
        let name = String(parts[1])
        if name == "cabac_alignment_one_bit" || name.hasPrefix("slice_data") { ended = true; continue }
        current?.values[name] = value
        current?.endBit = bit + parts[2].count
    }
    if let current { slices.append(current) }
    return slices
}

/// A generated stream: its file, NAL units in decode order, and ffprobe's view.
struct GeneratedStream {
    var directory: URL
    var file: URL
    var nalUnits: [[UInt8]]

    init(_ spec: StreamSpec) throws {
        directory = try temporaryDirectory()
        file = directory.appendingPathComponent("stream.h264")
        let result = try run(ffmpegPath, spec.encoderArguments + ["-f", "h264", file.path])
        guard result.status == 0 else {
            throw TestFailure("ffmpeg failed for \(spec.name): \(String(decoding: result.stderr, as: UTF8.self))")
        }
        nalUnits = annexBNALUnits(Array(try Data(contentsOf: file)))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Access units in decode order as 4-byte length-prefixed samples.
    func samples() -> [[UInt8]] {
        // first_mb_in_slice is 0 exactly when the first payload bit is 1.
        accessUnits(nalUnits, isSlice: { [1, 5].contains($0[0] & 0x1F) }, startsPicture: { $0.count > 1 && $0[1] & 0x80 != 0 })
    }
}

/// NAL units in decode order grouped into 4-byte length-prefixed samples: a picture starts at a
/// non-VCL NAL unit after a slice, or at a slice that `startsPicture` says opens one.
func accessUnits(_ nalUnits: [[UInt8]], isSlice: ([UInt8]) -> Bool, startsPicture: ([UInt8]) -> Bool) -> [[UInt8]] {
    var samples: [[UInt8]] = []
    var current: [UInt8] = []
    var sawSlice = false
    for nal in nalUnits {
        let slice = isSlice(nal)
        if sawSlice, !slice || startsPicture(nal) {
            samples.append(current)
            current = []
            sawSlice = false
        }
        current += lengthPrefixed(nal)
        if slice { sawSlice = true }
    }
    if !current.isEmpty { samples.append(current) }
    return samples
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Expects `body` to throw a `CENCError` with `code`.
func expectCENCError(_ code: CENCError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("no error; expected \(code)", sourceLocation: sourceLocation)
    } catch {
        guard let cencError = error as? CENCError else {
            Issue.record("\(error) is not a CENCError", sourceLocation: sourceLocation)
            return
        }
        #expect(cencError.code == code, "\(cencError.reason)", sourceLocation: sourceLocation)
    }
}

/// Writes H.264 syntax for crafted inputs: fixed bits, exp-Golomb codes, trailing bits, and
/// emulation prevention when turned into a NAL unit.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func bit(_ value: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if value { bytes[bytes.count - 1] |= UInt8(0x80 >> (bitCount % 8)) }
        bitCount += 1
    }
    mutating func bits(_ value: UInt64, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bit((value >> UInt64(shift)) & 1 == 1) }
    }
    mutating func ue(_ value: UInt64) {
        let code = value + 1
        let length = 64 - code.leadingZeroBitCount
        bits(0, length - 1)
        bits(code, length)
    }
    mutating func se(_ value: Int64) {
        ue(value > 0 ? UInt64(2 * value - 1) : UInt64(-2 * value))
    }
    mutating func flag(_ value: Bool) { bit(value) }
    mutating func trailing() {
        bit(true)
        while bitCount % 8 != 0 { bit(false) }
    }
    var position: Int { bitCount }

    /// The NAL unit: header byte, then the payload with emulation prevention inserted.
    func nalUnit(header: UInt8) -> [UInt8] {
        var out: [UInt8] = [header]
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
