// loadgen: a small wrk2-style HTTP/1.1 load generator for `make bench`.
//
//   loadgen --port P --requests FILE [--rate R] [--duration S] [--connections C] [--max-requests N]
//           [--expect TEXT] [--first INDEX]
//
// FILE holds the raw requests to send, each as a 4-byte big-endian length then the bytes of a
// complete HTTP/1.1 request (keep-alive); they are sent in order from --first, cycling when the run
// needs more.
// With --rate the load is open-loop: request k (over all connections) is due at start + k/R and its
// latency is measured from that due time, not from when it was sent, so a stalled server is
// charged for the requests it delayed (wrk2's correction for coordinated omission). Without
// --rate every connection sends as soon as its previous answer arrives (saturation). Only
// 127.0.0.1 is targeted. Prints one JSON object on stdout.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var port: UInt16 = 0
    var requestsFile = ""
    var rate: Double = 0
    var duration: Double = 10
    var connections = 16
    var maxRequests = 1_000_000
    var first = 0
    var expect: String?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("loadgen: \(message)\n".utf8))
    exit(1)
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let name = arguments.next() {
        guard let value = arguments.next() else { fail("\(name) needs a value") }
        switch name {
        case "--port": options.port = UInt16(value) ?? 0
        case "--requests": options.requestsFile = value
        case "--rate": options.rate = Double(value) ?? -1
        case "--duration": options.duration = Double(value) ?? -1
        case "--connections": options.connections = Int(value) ?? 0
        case "--max-requests": options.maxRequests = Int(value) ?? 0
        case "--expect": options.expect = value
        case "--first": options.first = Int(value) ?? -1
        default: fail("unknown option \(name)")
        }
    }
    guard options.first >= 0 else { fail("--first must be a request index") }
    guard options.port != 0, !options.requestsFile.isEmpty else { fail("--port and --requests are required") }
    guard options.rate >= 0, options.duration > 0, options.duration <= 120 else { fail("--duration must be in (0, 120] seconds") }
    guard (1...512).contains(options.connections), (1...10_000_000).contains(options.maxRequests) else {
        fail("--connections must be 1...512, --max-requests 1...10000000")
    }
    return options
}

func loadRequests(_ path: String) -> [[UInt8]] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let bytes = [UInt8](data)
    var requests: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count {
        guard bytes.count - offset >= 4 else { fail("truncated length at \(offset)") }
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        offset += 4
        guard length > 0, bytes.count - offset >= length else { fail("truncated request at \(offset)") }
        requests.append(Array(bytes[offset..<offset + length]))
        offset += length
    }
    guard !requests.isEmpty else { fail("no requests in \(path)") }
    return requests
}

@inline(__always) func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func sleep(until deadline: UInt64) {
    var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
}

/// One keep-alive connection to 127.0.0.1:port with blocking I/O.
final class Connection: @unchecked Sendable {  // used by one thread only
    let port: UInt16
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var pending: [UInt8] = []

    init(port: UInt16) { self.port = port }
    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        pending.removeAll(keepingCapacity: true)
    }

    func connect() -> Bool {
        close()
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian   // 127.0.0.1 only
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 { close(); return false }
        return true
    }

    /// Sends one request and reads one response; returns the status and body, nil on an I/O error.
    func exchange(_ request: [UInt8]) -> (status: Int, body: [UInt8])? {
        if fd < 0, !connect() { return nil }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { close(); return nil }
            sent += n
        }
        // Headers.
        var headerEnd: Int?
        while true {
            if let end = findHeaderEnd(pending) { headerEnd = end; break }
            guard fill() else { close(); return nil }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: pending[0..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first else { close(); return nil }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { close(); return nil }
        var length = 0
        var closeAfter = false
        for line in lines.dropFirst() {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") { length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0 }
            if lower.hasPrefix("connection:") && lower.contains("close") { closeAfter = true }
        }
        let bodyStart = end + 4
        while pending.count < bodyStart + length {
            guard fill() else { close(); return nil }
        }
        let body = Array(pending[bodyStart..<bodyStart + length])
        pending.removeFirst(bodyStart + length)
        if closeAfter { close() }
        return (status, body)
    }

    private func fill() -> Bool {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if n <= 0 { return false }
        pending.append(contentsOf: buffer[0..<n])
        return true
    }

    private func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// What one connection's thread saw; merged after every thread has finished.
final class WorkerResult: @unchecked Sendable {
    var latencies: [UInt64] = []        // corrected (from the due time), nanoseconds
    var serviceLatencies: [UInt64] = [] // from the moment it was sent, nanoseconds
    var statuses: [Int: Int] = [:]
    var ioErrors = 0
    var unexpectedBodies = 0
    var late = 0                        // requests sent more than 1 ms after their due time
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    if needle.isEmpty { return true }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
        if haystack[i..<i + needle.count].elementsEqual(needle) { return true }
    }
    return false
}

func run(_ options: Options) {
    let counter = Counter()
    let requests = loadRequests(options.requestsFile)
    let expect = options.expect.map { Array($0.utf8) }
    let workers = (0..<options.connections).map { _ in WorkerResult() }
    let group = DispatchGroup()
    let durationNs = UInt64(options.duration * 1e9)
    let totalDue = options.rate > 0 ? min(options.maxRequests, Int(options.rate * options.duration)) : options.maxRequests
    /// The next request index in saturation mode, shared by the connections.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
    }


    var usageBefore = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usageBefore)
    // Connections are opened before the clock starts so the first requests do not pay for them.
    let connections = (0..<options.connections).map { _ in Connection(port: options.port) }
    for connection in connections where !connection.connect() { fail("cannot connect to 127.0.0.1:\(options.port)") }
    let start = monotonicNanoseconds() + 5_000_000
    let deadline = start + durationNs

    for worker in 0..<options.connections {
        let result = workers[worker]
        let connection = connections[worker]
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            var k = worker   // open loop: this connection owns due slots worker, worker + C, ...
            sleep(until: start)
            while true {
                let index: Int
                let due: UInt64
                if options.rate > 0 {
                    guard k < totalDue else { break }
                    index = k
                    due = start + UInt64(Double(k) / options.rate * 1e9)
                    k += options.connections
                    if due > monotonicNanoseconds() { sleep(until: due) }
                } else {
                    let taken = counter.next()
                    guard taken < totalDue else { break }
                    index = taken
                    due = monotonicNanoseconds()
                }
                let sentAt = monotonicNanoseconds()
                if sentAt >= deadline + 2_000_000_000 { break }  // hard stop well after the window
                if sentAt > due + 1_000_000 { result.late += 1 }
                let answer = connection.exchange(requests[(options.first + index) % requests.count])
                let done = monotonicNanoseconds()
                if let answer {
                    result.statuses[answer.status, default: 0] += 1
                    if let expect, answer.status == 200, !contains(answer.body, expect) { result.unexpectedBodies += 1 }
                    result.latencies.append(done - due)
                    result.serviceLatencies.append(done - sentAt)
                } else {
                    result.ioErrors += 1
                    _ = connection.connect()
                }
                if options.rate == 0, done >= deadline { break }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
    let end = monotonicNanoseconds()
    var usageAfter = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usageAfter)

    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    let cpu = seconds(usageAfter.ru_utime) - seconds(usageBefore.ru_utime) + seconds(usageAfter.ru_stime) - seconds(usageBefore.ru_stime)
    let latencies = workers.flatMap(\.latencies).sorted()
    let service = workers.flatMap(\.serviceLatencies).sorted()
    var statuses: [Int: Int] = [:]
    for worker in workers { statuses.merge(worker.statuses, uniquingKeysWith: +) }
    let ioErrors = workers.reduce(0) { $0 + $1.ioErrors }
    let unexpected = workers.reduce(0) { $0 + $1.unexpectedBodies }
    let late = workers.reduce(0) { $0 + $1.late }
    let completed = latencies.count
    let ok = statuses[200] ?? 0
    let elapsed = Double(end - start) / 1e9

    func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[rank]) / 1e6
    }
    func ms(_ value: Double) -> String { String(format: "%.3f", value) }

    let statusText = statuses.keys.sorted().map { "\"\($0)\": \(statuses[$0] ?? 0)" }.joined(separator: ", ")
    print("""
    {"rate": \(options.rate), "connections": \(options.connections), "duration_s": \(String(format: "%.3f", elapsed)), \
    "due": \(options.rate > 0 ? totalDue : completed + ioErrors), "sent": \(completed + ioErrors), "completed": \(completed), "ok": \(ok), "errors": \(completed - ok + ioErrors + unexpected), \
    "io_errors": \(ioErrors), "unexpected_bodies": \(unexpected), "statuses": {\(statusText)}, \
    "throughput_rps": \(String(format: "%.1f", Double(ok) / elapsed)), "late_sends": \(late), \
    "p50_ms": \(ms(percentile(latencies, 50))), "p95_ms": \(ms(percentile(latencies, 95))), "p99_ms": \(ms(percentile(latencies, 99))), \
    "max_ms": \(ms(percentile(latencies, 100))), \
    "service_p50_ms": \(ms(percentile(service, 50))), "service_p99_ms": \(ms(percentile(service, 99))), \
    "loadgen_cpu_s": \(String(format: "%.3f", cpu)), "loadgen_cpu_us_per_request": \(String(format: "%.1f", completed > 0 ? cpu / Double(completed) * 1e6 : 0))}
    """)

}

run(parseOptions())
