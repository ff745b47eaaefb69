import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis

/// Debian's `redis-server` (`make deps` installs it, its system service disabled) for tests: its
/// own temporary directory and free loopback port (on 127.0.0.1, and on ::1 where the host has
/// IPv6), in the foreground as a child of the test
/// process, never port 6379 or a system-wide instance. `stop()` ends it (the tests must);
/// `kill9()` simulates a crash; `restart()` starts it again on the same port and directory, so
/// an append-only file written with `appendFsyncAlways` carries the data across.
public final class TestRedis: @unchecked Sendable {
    /// `redis://[:password@]127.0.0.1:PORT/0`.
    package let url: RedisURL
    public let port: Int
    /// The server's directory (the append-only files, `redis.log`).
    public let directory: String
    private let password: String?
    private let arguments: [String]
    private let lock = NSLock()
    private var process: Process?

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static let serverExecutable = "/usr/bin/redis-server"
    public static let cliExecutable = "/usr/bin/redis-cli"
    /// Bound on start-up and shutdown; generous for a busy 2-core machine.
    static let startBound: TimeInterval = 60

    /// Starts a server. `password` protects the default user (`requirepass`);
    /// `appendFsyncAlways` turns on the append-only file with `appendfsync always` (otherwise
    /// nothing is persisted); `maxmemoryPolicy` is the eviction policy (`noeviction`, as the KAS
    /// requires, by default).
    public init(password: String? = nil, appendFsyncAlways: Bool = false, maxmemoryPolicy: String = "noeviction") throws {
        for executable in [Self.serverExecutable, Self.cliExecutable] where !FileManager.default.isExecutableFile(atPath: executable) {
            throw Failure(description: "\(executable) is not installed: run 'make deps' (it installs Debian's redis-server without starting it)")
        }
        port = try TestNginx.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kas-redis-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.password = password
        url = RedisURL(host: "127.0.0.1", port: port, password: password)
        var arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "-::1", "--dir", directory, "--daemonize", "no",
            "--logfile", directory + "/redis.log", "--save", "", "--maxmemory-policy", maxmemoryPolicy,
            "--appendonly", appendFsyncAlways ? "yes" : "no",
            // DEBUG SLEEP makes a slow reply for the timeout tests; loopback clients only.
            "--enable-debug-command", "local",
        ]
        if appendFsyncAlways { arguments += ["--appendfsync", "always"] }
        if let password { arguments += ["--requirepass", password] }
        self.arguments = arguments
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server again on the same port and directory after `stop()` or `kill9()`.
    public func restart() throws {
        stop()
        try start()
    }

    /// Stops the server cleanly (the `SHUTDOWN` command, which fsyncs the append-only file),
    /// then SIGKILL past a bound, and waits for it. Not SIGTERM: a child started from a test
    /// thread inherits that thread's blocked signals, and Swift's test runner blocks SIGTERM, so
    /// redis-server would never see it.
    public func stop() {
        guard isRunning else { return end(signal: SIGKILL) }
        _ = try? redisCLI("SHUTDOWN")
        end(signal: nil)
    }

    /// Kills the server with SIGKILL: no shutdown, nothing flushed beyond what was fsynced.
    public func kill9() {
        end(signal: SIGKILL)
    }

    /// Whether the server process is running.
    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    /// Runs `redis-cli` against the server (authenticated as the default user when there is a
    /// password) and returns its output without the final newline: an assertion path that does
    /// not go through the KAS's client.
    @discardableResult
    public func redisCLI(_ arguments: String...) throws -> String {
        try redisCLI(arguments)
    }

    @discardableResult
    public func redisCLI(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.cliExecutable)
        var all = ["-h", "127.0.0.1", "-p", String(port)]
        if let password { all += ["--no-auth-warning", "-a", password] }
        process.arguments = all + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "redis-cli \(arguments.first ?? "") failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

    private func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.serverExecutable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        // Ready when PING is answered (PONG, or NOAUTH before authentication): a bounded poll.
        let deadline = Date().addingTimeInterval(Self.startBound)
        while Date() < deadline, process.isRunning {
            if let answer = try? redisCLI("PING"), answer == "PONG" { return }
            usleep(50_000)
        }
        stop()
        let log = (try? String(contentsOfFile: directory + "/redis.log", encoding: .utf8)) ?? ""
        throw Failure(description: "redis-server did not start on port \(port): \(log.suffix(2000))")
    }

    /// Sends `signal` (if any), waits for the exit within the bound, then kills.
    private func end(signal: Int32?) {
        guard let process = lock.withLock({ self.process }) else { return }
        if let signal, process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(Self.startBound)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        lock.withLock { self.process = nil }
    }
}
