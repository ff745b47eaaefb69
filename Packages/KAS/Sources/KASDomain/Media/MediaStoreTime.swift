import Foundation

/// How media stores write time: whole milliseconds since 1970, rounded down, so every store
/// (`SQLiteMediaStore`, `RedisMediaStore`) answers with the same precision.
enum MediaStoreTime {
    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    /// A session's expiry: `timeout` after `nowMs`, to the nearest millisecond.
    static func expiry(_ nowMs: Int64, timeout: TimeInterval) -> Int64 { nowMs + Int64((timeout * 1000).rounded()) }
}
