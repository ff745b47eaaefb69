import Foundation
import Synchronization

/// Where structured log lines go. One call per line, without the trailing newline.
public protocol LogSink: Sendable {
    func write(_ line: String)
}

/// Standard error, one `write(2)` per line so lines from worker threads never interleave.
public struct StandardErrorLogSink: LogSink {
    public init() {}
    public func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// Keeps lines in memory, for tests and for tools that show the last requests.
public final class MemoryLogSink: LogSink {
    private let storage = Mutex<[String]>([])
    public init() {}
    public func write(_ line: String) { storage.withLock { $0.append(line) } }
    public var lines: [String] { storage.withLock { $0 } }
}

/// UTC timestamps for log lines, `2024-05-01T12:00:00.123Z`. Built with gmtime_r because
/// Foundation's formatters are not guaranteed thread-safe on every platform.
enum LogTimestamp {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let millis = Int32(spec.tv_nsec / 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }
}
