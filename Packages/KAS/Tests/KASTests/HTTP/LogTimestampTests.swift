import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import Testing

@Suite struct LogTimestampTests {
    /// The hand-built stamp must be exactly what ISO8601DateFormatter wrote before (milliseconds
    /// rounded to the nearest, UTC, `Z`), across years, leap days and sub-millisecond fractions.
    @Test(arguments: [0.0, 1_800_000_000, 1_800_000_000.0004, 1_800_000_000.0006, 1_800_000_000.9996, -1.25, 1_800_000_000.9999, 951_782_400.123, 4_102_444_799.999,
                      1_709_164_800.5, 946_684_799.001])
    func matchesFoundationFormatter(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(LogTimestamp.string(from: date) == formatter.string(from: date))
    }

    @Test func nowHasTheFixedShape() {
        let text = Array(LogTimestamp.now().utf8)
        #expect(text.count == 24)
        #expect(text[4] == UInt8(ascii: "-") && text[10] == UInt8(ascii: "T") && text[19] == UInt8(ascii: ".") && text[23] == UInt8(ascii: "Z"))
    }
}
