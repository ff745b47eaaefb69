/// The bit rates RFC 8216 §4.3.4.2 asks of a rendition: the peak segment bit rate (the largest
/// of each segment's size in bits over its duration) and the average over the whole stream, both
/// of the bytes a client downloads, in bits per second rounded up.
public struct HLSBitRate: Sendable, Equatable {
    public var peak: Int
    public var average: Int

    public init(peak: Int, average: Int) {
        self.peak = peak
        self.average = average
    }

    /// From each segment's size in bytes and its duration in seconds (segments of no duration
    /// are left out); at least 1 each, since BANDWIDTH is a positive decimal-integer.
    public init(sizes: [Int], durations: [Double]) {
        var peak = 0.0
        var total = 0.0
        var time = 0.0
        for (size, duration) in zip(sizes, durations) where duration > 0 {
            peak = max(peak, Double(size) * 8 / duration)
            total += Double(size) * 8
            time += duration
        }
        self.peak = max(1, Int(peak.rounded(.up)))
        average = max(1, Int((time > 0 ? total / time : 0).rounded(.up)))
    }

    /// A variant's BANDWIDTH and AVERAGE-BANDWIDTH (§4.3.4.2): its own rate plus, per rendition
    /// group it names, the largest rate of that group (the most demanding playable combination).
    public static func variant(_ video: HLSBitRate, groups: [[HLSBitRate]]) -> HLSBitRate {
        var rate = video
        for group in groups where !group.isEmpty {
            rate.peak += group.map(\.peak).max() ?? 0
            rate.average += group.map(\.average).max() ?? 0
        }
        return rate
    }
}
