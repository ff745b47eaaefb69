import Foundation

/// One TCP connection to Redis over POSIX sockets: a host name resolved with getaddrinfo (IPv4
/// and IPv6, each address tried in turn), a non-blocking connect bounded by poll(), then a
/// blocking socket with `TCP_NODELAY` (commands are small and answered one at a time) and
/// `SO_RCVTIMEO`/`SO_SNDTIMEO` as a backstop. Every send and receive also polls against the
/// caller's deadline, so one command takes at most the client's timeout however its reply
/// trickles in. SIGPIPE is suppressed per send (`MSG_NOSIGNAL`), so a peer that went away is an
/// error, not a dead process. Messages name the store by `label` (its redacted URL).
final class RedisSocket {
    private var descriptor: Int32
    private let label: String

    private init(descriptor: Int32, label: String) {
        self.descriptor = descriptor
        self.label = label
    }

    deinit { close() }

    /// Connects to `host:port` within `timeout`.
    static func connect(host: String, port: Int, timeout: Duration, label: String) throws(RedisError) -> RedisSocket {
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            let message = String(cString: gai_strerror(resolved))
            throw RedisError(.unreachable, "cannot resolve the host of \(label): \(message)")
        }
        defer { freeaddrinfo(list) }
        var lastError = RedisError(.unreachable, "\(label) has no address to connect to")
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            do {
                let descriptor = try connect(current.pointee, deadline: deadline, label: label)
                return RedisSocket(descriptor: descriptor, label: label)
            } catch {
                lastError = error
                if error.code == .timeout { break }
            }
        }
        throw lastError
    }

    private static func connect(_ address: addrinfo, deadline: ContinuousClock.Instant, label: String) throws(RedisError) -> Int32 {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard descriptor >= 0 else { throw RedisError(.unreachable, "cannot create a socket for \(label): \(errorText())") }
        var connected = false
        defer { if !connected { Glibc.close(descriptor) } }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw RedisError(.unreachable, "cannot configure the socket for \(label): \(errorText())")
        }
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS || errno == EINTR else {
                throw RedisError(.unreachable, "cannot connect to \(label): \(errorText())")
            }
            guard try wait(descriptor, for: Int16(POLLOUT), until: deadline) else {
                throw RedisError(.timeout, "connecting to \(label) took longer than the timeout")
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 else {
                throw RedisError(.unreachable, "cannot connect to \(label): \(String(cString: strerror(failure)))")
            }
        }
        guard fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            throw RedisError(.unreachable, "cannot configure the socket for \(label): \(errorText())")
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let remaining = max(deadline - ContinuousClock.now, .milliseconds(100))
        var backstop = timeval(tv_sec: Int(remaining.components.seconds) + 1, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &backstop, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &backstop, socklen_t(MemoryLayout<timeval>.size))
        connected = true
        return descriptor
    }

    /// Sends every byte before `deadline`.
    func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(RedisError) {
        guard descriptor >= 0 else { throw RedisError(.unreachable, "the connection to \(label) is closed") }
        var offset = 0
        while offset < bytes.count {
            guard try Self.wait(descriptor, for: Int16(POLLOUT), until: deadline) else {
                throw RedisError(.timeout, "sending to \(label) took longer than the timeout")
            }
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw RedisError(.unreachable, "the connection to \(label) failed while sending: \(Self.errorText())")
            }
            offset += sent
        }
    }

    /// Receives what is available (at least one byte) before `deadline` into `reader`.
    func receive(into reader: inout RESPReader, until deadline: ContinuousClock.Instant) throws(RedisError) {
        guard descriptor >= 0 else { throw RedisError(.unreachable, "the connection to \(label) is closed") }
        var chunk = [UInt8](repeating: 0, count: Self.receiveChunk)
        while true {
            guard try Self.wait(descriptor, for: Int16(POLLIN), until: deadline) else {
                throw RedisError(.timeout, "\(label) did not answer within the timeout")
            }
            let received = chunk.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                reader.append(chunk[0..<received])
                return
            }
            if received == 0 { throw RedisError(.unreachable, "\(label) closed the connection") }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            throw RedisError(.unreachable, "the connection to \(label) failed while receiving: \(Self.errorText())")
        }
    }

    /// Whether the peer closed this idle connection or sent something unasked (RESP2 without
    /// pub/sub never does): such a connection must not carry the next command.
    var isStale: Bool {
        guard descriptor >= 0 else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Bytes read per recv: a typical reply fits in one.
    private static let receiveChunk = 16 << 10

    /// Polls for `events` until `deadline`; false on timeout.
    private static func wait(_ descriptor: Int32, for events: Int16, until deadline: ContinuousClock.Instant) throws(RedisError) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR {
                throw RedisError(.unreachable, "poll failed: \(errorText())")
            }
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
