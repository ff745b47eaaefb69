import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

/// A `kas serve` process of the built binary on loopback, for tests that attack it as an outside
/// client would. Started with `start`, stopped (SIGTERM, then SIGKILL past a bound) by `stop`.
/// Immutable after start (the `Process` is only signalled and waited for), so threads may share it.
final class ServedKAS: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`.
    let address: String
    let port: Int
    let logPath: String

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private init(process: Process, address: String, logPath: String) {
        self.process = process
        self.address = address
        self.port = Int(address.split(separator: ":").last ?? "") ?? 0
        self.logPath = logPath
    }

    /// Starts `kas serve ARGUMENTS` in `directory`, with `environment` added to the caller's (no
    /// KAS_* of it), and waits (bounded) for its `listening` line.
    static func start(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> ServedKAS {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try KASToolHarness.executable())
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }
            .merging(environment) { $1 }
        let logPath = (directory as NSString).appendingPathComponent("serve-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let read = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        let deadline = Date().addingTimeInterval(120)   // far past a start on a loaded machine
        while Date() < deadline, process.isRunning {
            for line in read().split(separator: "\n") where line.contains(#""event":"listening""#) {
                let object = try #require(JSONParser.parse(Data(line.utf8)).object)
                return ServedKAS(process: process, address: try #require(object["address"]?.string), logPath: logPath)
            }
            usleep(50_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        throw KASToolHarness.Failure(description: "kas serve did not start: \(read())")
    }

    /// SIGTERM, waiting (bounded) for the exit; returns the exit status.
    @discardableResult
    func stop() -> Int32 { Self.stop(process, signal: SIGTERM) }

    /// Sends `signal` and waits (bounded) for the exit, then SIGKILL; returns the exit status.
    /// Children inherit a blocked SIGTERM in these tests: SIGKILL, never `Process.terminate()`.
    static func stop(_ process: Process, signal: Int32) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Raises this (test) process's soft descriptor limit to its hard limit: a flood test holds
    /// hundreds of sockets.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Sends one raw request from `source` and reads until the server closes or `timeout` s.
    func raw(_ bytes: [UInt8], from source: String? = nil, timeout: Int = 10) throws -> String {
        let connection = try RawConnection(port: port, receiveTimeout: timeout, source: source)
        defer { connection.closeNow() }
        connection.send(bytes)
        return String(decoding: connection.readAll(), as: UTF8.self)
    }
}

/// How many HTTP responses a raw answer holds (status lines).
func responseCount(_ raw: String) -> Int {
    raw.components(separatedBy: "HTTP/1.1 ").count - 1
}
