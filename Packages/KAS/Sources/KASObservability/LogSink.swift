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

/// UTC timestamps for log lines, `2024-05-01T12:00:00.123Z`. Built with
/// gmtime_r into a fixed 24-byte buffer: Foundation's formatters are not guaranteed thread-safe on
/// every platform, and a new ISO8601DateFormatter per line cost 13 % of a key request's CPU.
package enum LogTimestamp {
    package static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: spec.tv_sec, milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    package static func string(from date: Date) -> String {
        // Rounded to the nearest millisecond, as ISO8601DateFormatter (ICU) did.
        let total = (date.timeIntervalSince1970 * 1000).rounded()
        // Dates outside what time_t and four year digits hold are not produced by a clock.
        guard total.isFinite, total > -62_135_596_800_000, total < 253_402_300_800_000 else { return "0000-01-01T00:00:00.000Z" }
        let millis = Int64(total)
        let (seconds, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? format(seconds: time_t(seconds - 1), milliseconds: Int(remainder + 1000))
                             : format(seconds: time_t(seconds), milliseconds: Int(remainder))
    }

    private static func format(seconds: time_t, milliseconds: Int) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(unsafeUninitializedCapacity: 24) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            put(Int(parts.tm_year) + 1900, 4, at: 0); out[4] = 45            // -
            put(Int(parts.tm_mon) + 1, 2, at: 5); out[7] = 45
            put(Int(parts.tm_mday), 2, at: 8); out[10] = 84                 // T
            put(Int(parts.tm_hour), 2, at: 11); out[13] = 58                // :
            put(Int(parts.tm_min), 2, at: 14); out[16] = 58
            put(Int(parts.tm_sec), 2, at: 17); out[19] = 46                 // .
            put(milliseconds, 3, at: 20); out[23] = 90                      // Z
            return 24
        }
    }
}
