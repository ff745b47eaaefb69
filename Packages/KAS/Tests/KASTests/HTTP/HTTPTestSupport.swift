import Foundation
import Glibc
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Synchronization

/// Runs the curl CLI against a real server. Output goes to temp files so binary bodies survive.
struct CurlResult {
    let exitCode: Int32
    let status: Int
    let body: Data
    let headers: String
    let stdout: String
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The last value of a response header (headers of a 100 Continue come first).
    func header(_ name: String) -> String? {
        var found: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                found = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return found
    }
}

enum Curl {
    static func run(_ arguments: [String], writeOut: String = "%{http_code}", stdin: Data? = nil) throws -> CurlResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kas-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyPath = directory.appendingPathComponent("body").path
        let headerPath = directory.appendingPathComponent("headers").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", bodyPath, "-D", headerPath, "-w", writeOut, "--max-time", "30"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyPath))) ?? Data()
        let headers = (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? ""
        return CurlResult(exitCode: process.terminationStatus, status: Int(stdout.prefix(3)) ?? 0,
                          body: body, headers: headers, stdout: stdout)
    }
}

/// A blocking TCP client over Glibc sockets, for what curl will not send.
final class RawConnection {
    private(set) var fd: Int32

    /// - Parameter source: the local (loopback) address to connect from, so one test can play
    ///   many clients (every 127.0.0.0/8 address is local on Linux).
    init(port: Int, receiveTimeout: Int = 10, source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawError.socket }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                closeNow()
                throw RawError.connect
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            closeNow()
            throw RawError.connect
        }
    }

    deinit { closeNow() }

    /// How long a read waits for the next byte before giving up (SO_RCVTIMEO).
    func setReceiveTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Closes once; deinit does not close again (the number may belong to someone else by then).
    func closeNow() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes, an error, or the receive timeout.
    func readAll() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            out.append(contentsOf: buffer[0..<count])
        }
        return out
    }

    /// Reads one response whose body length is given by Content-Length.
    func readResponse() -> String? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let text = Self.completeResponse(out) { return text }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return out.isEmpty ? nil : String(decoding: out, as: UTF8.self) }
            out.append(contentsOf: buffer[0..<count])
        }
    }

    /// Without waiting: true when the server has closed the connection (EOF or reset), false
    /// while it is open with nothing to read.
    func peerHasClosed() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Without waiting: whether bytes (or the end of the stream) are there to read.
    func isReadable() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Sends without blocking or raising SIGPIPE; false when the connection is gone.
    func trySend(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } == bytes.count
    }

    /// True when the server closed the connection (EOF or reset) without sending anything.
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, 0)
        return count == 0 || (count < 0 && (errno == ECONNRESET || errno == EPIPE))
    }

    private static func completeResponse(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        var length = 0
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        let bodyBytes = text[end.upperBound...].utf8.count
        return bodyBytes >= length ? text : nil
    }

    enum RawError: Error { case socket, connect }
}

/// A thread-safe counter shared between a handler and a test.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Polls `condition` until it holds or `timeout` passes (a generous bound: the machine is busy);
/// the caller records the `false` of a timeout as a failure.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// A one-shot flag a handler raises and a test waits for.
final class Flag: Sendable {
    private let raised = Mutex(false)
    func raise() { raised.withLock { $0 = true } }
    func wait(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if raised.withLock({ $0 }) { return true }
            usleep(2_000)
        }
        return raised.withLock { $0 }
    }
}

func statusLine(_ response: String?) -> String {
    guard let response, let end = response.range(of: "\r\n") else { return "" }
    return String(response[..<end.lowerBound])
}
