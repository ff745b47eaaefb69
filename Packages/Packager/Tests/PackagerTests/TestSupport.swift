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
func run(_ executable: String, _ arguments: [String], input: Data? = nil, inputFile: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    if let inputFile {
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
    if inputFile == nil {
        if let input { inPipe.fileHandleForWriting.write(input) }
        try? inPipe.fileHandleForWriting.close()
    }
    process.waitUntilExit()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

enum FFmpeg {
    /// `-c copy -f streamhash -hash md5` of one stream of a file.
    static func streamHash(_ path: String, map: String) throws -> String {
        let r = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-i", path, "-map", map, "-c", "copy",
                                            "-f", "streamhash", "-hash", "md5", "-"])
        guard r.status == 0 else { throw TestFailure("ffmpeg streamhash failed: \(r.stderr)") }
        return hashes(r.stdoutText)
    }

    /// The same over init + segments concatenated into a pipe, decrypted with `key`.
    static func streamHash(decrypting data: Data, keyHex: String) throws -> String {
        let r = try run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-decryption_key", keyHex, "-i", "pipe:0",
                                            "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"], input: data)
        guard r.status == 0 else { throw TestFailure("ffmpeg decrypting streamhash failed: \(r.stderr)") }
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

    static func hashes(_ text: String) -> String {
        // "0,v,MD5=..." : drop the stream index so a one-track output compares with -map 0:a.
        text.split(separator: "\n").map { line in line.split(separator: ",").dropFirst().joined(separator: ",") }.joined(separator: "\n")
    }

    static func md5Column(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { String($0).trimmingCharacters(in: .whitespaces) } }
    }
}
