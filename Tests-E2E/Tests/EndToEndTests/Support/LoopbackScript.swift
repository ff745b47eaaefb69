import Foundation

/// A project Python script that serves on 127.0.0.1 and prints its port as its first line
/// (`Tools/python/range_server.py`, `delivery_stub.py`, `rate_limit_proxy.py`): started with
/// python3 (the standard library is all they need), stdin kept as a pipe that `stop()` closes —
/// the script exits when it closes, so a crashed run leaves no server behind.
final class LoopbackScript: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    init(_ script: String, arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Tools.repositoryRoot.appendingPathComponent("Tools/python/\(script)").path] + arguments
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0a) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), port > 0 else {
            process.terminate()
            throw TestFailure("\(script) did not print its port (python3 with the standard library: make deps)")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
