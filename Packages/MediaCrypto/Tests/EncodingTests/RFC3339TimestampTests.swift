import Testing
@testable import MediaDRMEncoding

@Suite struct RFC3339TimestampTests {
    @Test func writesWholeSecondsInUTCAndReadsThemBack() {
        #expect(RFC3339Timestamp.string(seconds: 0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339Timestamp.string(seconds: 951_825_600) == "2000-02-29T12:00:00Z")
        #expect(RFC3339Timestamp.string(seconds: 1_796_155_199) == "2026-12-01T19:59:59Z")
        #expect(RFC3339Timestamp.string(seconds: 253_402_300_799) == "9999-12-31T23:59:59Z")
        for seconds: Int64 in [0, 59, 86_399, 86_400, 951_782_400, 1_796_155_200, 4_102_444_800, 253_402_300_799] {
            #expect(RFC3339Timestamp.seconds(RFC3339Timestamp.string(seconds: seconds)) == Double(seconds), "\(seconds)")
        }
    }

    @Test func fractionsUpToNanosecondsAndNoMore() {
        #expect(RFC3339Timestamp.seconds("1970-01-01T00:00:00.123456789Z") == 0.123456789)
        // More digits than a nanosecond are refused, never read into an overflowing integer.
        #expect(RFC3339Timestamp.seconds("1970-01-01T00:00:00.1234567891Z") == nil)
        #expect(RFC3339Timestamp.seconds("2026-12-01T20:00:00.9999999999999999999Z") == nil)
    }

    @Test func everyPrefixAndAnOffsetAreRefused() {
        let text = "2026-12-01T20:00:00.250Z"
        for length in 0..<text.count {
            #expect(RFC3339Timestamp.seconds(String(text.prefix(length))) == nil, "\(text.prefix(length))")
        }
        #expect(RFC3339Timestamp.seconds("2026-12-01T20:00:00+00:00") == nil)
    }
}
