/// RFC 3339 UTC timestamps as the project's JSON messages carry them (the playback API's
/// `mediaUrlExpiresAt` and `expiresAt`, the offline licence answers and play reports):
/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. Anything else (offsets, lower-case separators,
/// out-of-range fields, more than nine fraction digits) is refused, so a misread expiry can never
/// look like a far future. No formatter object and no locale: the same bytes on every platform.
public enum RFC3339Timestamp {
    /// At most nanoseconds: more digits add nothing and would overflow the fraction's integer.
    static let maximumFractionDigits = 9

    /// Seconds since the Unix epoch, or nil when `text` is not such a timestamp.
    public static func seconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 21 + maximumFractionDigits, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1970...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21, let digits = number(20..<(bytes.count - 1)) else { return nil }
            fraction = Double(digits) / pow10(bytes.count - 21)
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[month - 1] else { return nil }
        return Double(daysFromEpoch(year: year, month: month, day: day)) * 86_400
            + Double(hour * 3600 + minute * 60 + second) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since the epoch (years 1970 to 9999).
    public static func string(seconds: Int64) -> String {
        let floored = seconds % 86_400 < 0 ? seconds / 86_400 - 1 : seconds / 86_400
        let days = Int(floored), within = Int(seconds - floored * 86_400)
        let (year, month, day) = civilDate(daysFromEpoch: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(within / 3600)):\(two(within / 60 % 60)):\(two(within % 60))Z"
    }

    private static func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse).
    private static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (the inverse of `daysFromEpoch`).
    private static func civilDate(daysFromEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
