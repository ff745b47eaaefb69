import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis

/// Debian's stock nginx (`make deps` installs it) as a test origin: its own prefix directory,
/// configuration and loopback port, running the `server` block of `kas origin-config` in the
/// foreground as a child of the test process; `stop()` ends it. Never the system service.
public final class TestNginx: @unchecked Sendable {
    public let process: Process
    /// `http://127.0.0.1:PORT`.
    public let url: String
    public let prefix: String

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The nginx binary; a missing one fails the test (the project's tests never skip).
    public static func executable() throws -> String {
        for candidate in ["/usr/sbin/nginx", "/usr/bin/nginx"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw Failure(description: "nginx is not installed: run 'make deps' (it installs Debian's nginx without starting it)")
    }

    /// Starts nginx with `serverBlock` (which listens on `port`) inside a minimal `http { }` in
    /// `prefix`, with `httpDirectives` (such as `limit_rate 64k;`) before it, and waits
    /// (bounded) until it answers on the port.
    public init(serverBlock: String, port: Int, prefix: String, httpDirectives: String = "") throws {
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/tmp", withIntermediateDirectories: true)
        let temp = prefix + "/tmp"
        let configuration = """
        daemon off;
        master_process on;
        worker_processes 1;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/logs/error.log warn;
        events { worker_connections 64; }
        http {
            access_log \(prefix)/logs/access.log;
            client_body_temp_path \(temp)/body;
            proxy_temp_path \(temp)/proxy;
            fastcgi_temp_path \(temp)/fastcgi;
            uwsgi_temp_path \(temp)/uwsgi;
            scgi_temp_path \(temp)/scgi;
            \(httpDirectives)
        \(serverBlock)
        }

        """
        let file = prefix + "/nginx.conf"
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["-p", prefix, "-c", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: Self.touch(prefix + "/logs/stderr.log")))
        try process.run()
        self.process = process
        self.url = "http://127.0.0.1:\(port)"
        self.prefix = prefix
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            if Self.accepts(port: port) { return }
            usleep(50_000)
        }
        stop()
        let log = (try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? ""
        throw Failure(description: "nginx did not start on port \(port): \(log.suffix(2000))")
    }

    /// Reloads the configuration (and the included secret file): SIGHUP to the master.
    public func reload() {
        if process.isRunning { kill(process.processIdentifier, SIGHUP) }
    }

    /// Stops nginx (SIGQUIT, then SIGKILL past a bound) and waits for it.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGQUIT) }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // Workers exit with their master; a stray one would hold the port.
    }

    /// A free loopback TCP port (bound, read back and closed).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func touch(_ path: String) -> String {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return path
    }
}
