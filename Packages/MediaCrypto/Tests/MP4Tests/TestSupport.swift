import Foundation
import Testing
@testable import MediaDRMMP4

/// Writes `box`, reads it back and checks both directions: the value survives, and the bytes
/// read re-serialise to the same bytes.
@discardableResult
func roundTrip<B: MP4Box>(_ box: B, options: DecodingOptions = DecodingOptions(),
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
    let bytes = try box.serializedBytes()
    let parsed = try B(parsing: bytes, options: options)
    #expect(parsed == box, sourceLocation: sourceLocation)
    #expect(try parsed.serializedBytes() == bytes, sourceLocation: sourceLocation)
    return bytes
}

/// Parses canonical bytes and checks they re-serialise unchanged.
@discardableResult
func readWrite<B: MP4Box>(_ bytes: [UInt8], as _: B.Type, options: DecodingOptions = DecodingOptions(),
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> B {
    let box = try B(parsing: bytes, options: options)
    #expect(try box.serializedBytes() == bytes, sourceLocation: sourceLocation)
    return box
}

/// Bytes from hex with spaces allowed.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0 ... $0 + 1]), radix: 16) ?? 0 }
}

func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

/// A box of `type` around `payload`, with a correct 32-bit size.
func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
}

/// A full box of `type`.
func fullBox(_ type: String, version: UInt8, flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
    box(type, [version, UInt8((flags >> 16) & 0xFF), UInt8((flags >> 8) & 0xFF), UInt8(flags & 0xFF)] + payload)
}

/// Expects parsing `bytes` as `B` to fail with `code`.
func expectFailure<B: MP4Box>(_ bytes: [UInt8], as _: B.Type, _ code: MP4Error.Code,
                              options: DecodingOptions = DecodingOptions(),
                              sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try B(parsing: bytes, options: options)
        Issue.record("parsing succeeded; expected \(code)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error.reason)", sourceLocation: sourceLocation)
    }
}

/// Expects serialising `box` to fail with `code`.
func expectWriteFailure<B: MP4Box>(_ box: B, _ code: MP4Error.Code, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try box.serializedBytes()
        Issue.record("serialising succeeded; expected \(code)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error.reason)", sourceLocation: sourceLocation)
    }
}

/// Every strict prefix of `bytes` must fail with an MP4Error (typed throws make any other error
/// impossible; a trap would crash the test run). With `resizing`, the prefix's top-level size is
/// also rewritten to the prefix length so the inner boxes are the ones found short; such a prefix
/// may parse only when it ends on a child boundary, and then it must re-serialise to itself.
func checkEveryPrefix<B: MP4Box>(of bytes: [UInt8], as _: B.Type, options: DecodingOptions = DecodingOptions(),
                                 sourceLocation: SourceLocation = #_sourceLocation) {
    var resizedSuccesses = 0
    for length in 0 ..< bytes.count {
        let prefix = Array(bytes[..<length])
        do {
            _ = try B(parsing: prefix, options: options)
            Issue.record("prefix of \(length) bytes parsed", sourceLocation: sourceLocation)
        } catch {
            _ = error.code
        }
        guard length >= 8 else { continue }
        var resized = prefix
        resized.replaceSubrange(0 ..< 4, with: be32(UInt32(length)))
        do {
            let box = try B(parsing: resized, options: options)
            resizedSuccesses += 1
            #expect(try box.serializedBytes() == resized, "resized prefix \(length) parsed differently",
                    sourceLocation: sourceLocation)
        } catch {
            _ = error.code
        }
    }
    #expect(resizedSuccesses < bytes.count / 2, sourceLocation: sourceLocation)
}

/// ffmpeg output made once per test process in a temporary directory.
enum TestMedia {
    static let ffmpeg = "/usr/bin/ffmpeg"
    static var ffmpegAvailable: Bool { FileManager.default.isExecutableFile(atPath: ffmpeg) }

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mp4tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static let progressive: URL? = make("progressive.mp4", extra: [])
    static let fragmented: URL? = make("fragmented.mp4", extra: ["-g", "25", "-movflags", "frag_keyframe+empty_moov+default_base_moof"])
    static let bFrames: URL? = make("bframes.mp4", extra: ["-bf", "2"])
    static let keyHex = "00112233445566778899aabbccddeeff"
    static let kidHex = "0123456789abcdef0123456789abcdef"
    /// ffmpeg's own CENC (AES-CTR) writer: encv/enca, sinf, tenc, and senc/saiz/saio in each stbl.
    static let encrypted: URL? = make("encrypted.mp4", extra: [
        "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", keyHex, "-encryption_kid", kidHex,
    ])

    private static func make(_ name: String, extra: [String]) -> URL? {
        guard ffmpegAvailable else { return nil }
        let out = directory.appendingPathComponent(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-loglevel", "error", "-y",
                             "-f", "lavfi", "-i", "testsrc=size=128x72:rate=25", "-f", "lavfi", "-i", "sine",
                             "-t", "2", "-c:v", "libx264", "-c:a", "aac"] + extra + [out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? out : nil
    }
}
