// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// A WebVTT timestamp (W3C WebVTT §4.2 "WebVTT timestamp"): `[hh:]mm:ss.ttt`, hours of two or
/// more digits, minutes and seconds 00 ... 59, exactly three fraction digits. Held in
/// milliseconds, the format's own resolution, so nothing is lost in a round trip.
public enum WebVTTTimestamp {
    /// The largest hours value read (a bound that keeps milliseconds far inside Int64).
    static let maximumHours: Int64 = 999_999

    /// Parses one timestamp; nil when it does not follow the syntax.
    public static func parse<S: StringProtocol>(_ text: S) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let last = parts.last else { return nil }
        let secondsParts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[1].utf8.count == 3,
              let seconds = digits(secondsParts[0], count: 2), seconds <= 59,
              let fraction = digits(secondsParts[1], count: 3) else { return nil }
        guard let minutes = digits(parts[parts.count - 2], count: 2), minutes <= 59 else { return nil }
        var hours: Int64 = 0
        if parts.count == 3 {
            let h = parts[0]
            guard h.utf8.count >= 2, h.utf8.count <= 6, let value = digits(h, count: h.utf8.count), value <= maximumHours else { return nil }
            hours = value
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + fraction
    }

    /// `hh:mm:ss.ttt` (hours always written, at least two digits).
    public static func format(_ milliseconds: Int64) -> String {
        let ms = max(0, milliseconds)
        let hours = ms / 3_600_000, minutes = ms / 60_000 % 60, seconds = ms / 1000 % 60, fraction = ms % 1000
        return pad(hours, 2) + ":" + pad(minutes, 2) + ":" + pad(seconds, 2) + "." + pad(fraction, 3)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func digits<S: StringProtocol>(_ text: S, count: Int) -> Int64? {
        guard text.utf8.count == count, text.utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
