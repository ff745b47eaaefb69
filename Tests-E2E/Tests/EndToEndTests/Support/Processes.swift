import Foundation

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// Throws unless the program exited 0; `what` names the step in the failure.
    func check(_ what: String) throws {
        guard status == 0 else { throw TestFailure("\(what) failed (\(status)): \(stderr.suffix(400))") }
    }
}

/// Runs a program to completion, feeding `input` on stdin; stdout and stderr are drained
/// concurrently so a chatty child never blocks on a full pipe. `started` gets the child's pid
/// (for a watchdog).
func run(_ executable: String, _ arguments: [String], input: Data? = nil,
         environment: [String: String]? = nil, started: ((pid_t) -> Void)? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    started?(process.processIdentifier)
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    if let input { inPipe.fileHandleForWriting.write(input) }
    try? inPipe.fileHandleForWriting.close()
    process.waitUntilExit()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: outData,
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Stops a server the suite started: SIGTERM (its graceful stop), SIGKILL past a 30 s bound.
func stopGracefully(_ process: Process) {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    let deadline = Date().addingTimeInterval(30)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// Where the suite's files go: one directory per test process, removed at exit.
enum Scratch {
    static let directory: String = {
        let path = NSTemporaryDirectory() + "mediadrm-e2e-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "mediadrm-e2e-\(getpid())") }
        return path
    }()

    static func directory(_ label: String) -> String {
        let path = directory + "/\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// The repository and the programs built beside the test bundle.
enum Tools {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// SwiftPM puts the executables this package depends on beside the test bundle, whatever
    /// the scratch path (`make e2e` shares the repository's `.build`).
    static func executable(_ name: String) throws -> String {
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path,
            repositoryRoot.appendingPathComponent("Tests-E2E/.build/debug").path,
            repositoryRoot.appendingPathComponent(".build/debug").path,
        ].map { $0 + "/" + name }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("no \(name) executable beside the tests (looked in \(candidates))")
        }
        return path
    }

    static var packager: String { get throws { try executable("packager") } }
    static var player: String { get throws { try executable("player") } }
    static var kas: String { get throws { try executable("kas") } }
    static let ffmpeg = "/usr/bin/ffmpeg"
    static let ffprobe = "/usr/bin/ffprobe"
    static let openssl = "/usr/bin/openssl"
}
