import Foundation
import MediaDRMEncoding

/// The two time forms of the offline messages (docs/offline.md): NumericDate (RFC 7519 §2, whole
/// seconds since the epoch) inside the licence, RFC 3339 in UTC (`2026-12-01T18:00:00Z`) in the
/// JSON answers and reports a person may read.
public enum OfflineTimestamp {
    /// Whole seconds since the epoch, rounded down.
    public static func numericDate(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    public static func date(numericDate seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// RFC 3339 in UTC, whole seconds.
    public static func rfc3339(_ date: Date) -> String { RFC3339Timestamp.string(seconds: numericDate(date)) }

    /// An RFC 3339 UTC date-time (`Z`), with or without fractional seconds (`RFC3339Timestamp`).
    public static func date(rfc3339 text: String) -> Date? {
        RFC3339Timestamp.seconds(text).map { Date(timeIntervalSince1970: $0) }
    }
}
