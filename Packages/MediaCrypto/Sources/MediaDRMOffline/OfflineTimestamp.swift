import Foundation

/// The two time forms of the offline messages (docs/offline.md): NumericDate (RFC 7519 §2, whole
/// seconds since the epoch) inside the licence, RFC 3339 in UTC (`2026-12-01T18:00:00Z`) in the
/// JSON answers and reports a person may read.
public enum OfflineTimestamp {
    /// Whole seconds since the epoch, rounded down.
    public static func numericDate(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    public static func date(numericDate seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// RFC 3339 in UTC, whole seconds.
    public static func rfc3339(_ date: Date) -> String {
        formatter(fractional: false).string(from: Self.date(numericDate: numericDate(date)))
    }

    /// An RFC 3339 date-time with a `Z` or numeric offset, with or without fractional seconds.
    public static func date(rfc3339 text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        return formatter(fractional: false).date(from: text) ?? formatter(fractional: true).date(from: text)
    }

    /// A new formatter per call: ISO8601DateFormatter is not Sendable, and these messages are rare.
    private static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }
}
