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

    /// The peak as RFC 8216bis (§4.4.6.2) defines the peak segment bit rate: the largest rate of
    /// any run of contiguous segments whose total duration is from 0.5 to 1.5 times the target
    /// duration, so a short final segment counts only together with the one before it (as Shaka
    /// Packager measures). When no run qualifies (a stream shorter than half the target), every
    /// segment counts alone, as `init(sizes:durations:)` does. The average is the same.
    public init(sizes: [Int], durations: [Double], targetDuration: Int) {
        self.init(sizes: sizes, durations: durations)
        let low = 0.5 * Double(targetDuration), high = 1.5 * Double(targetDuration)
        var peak = 0.0
        for start in sizes.indices {
            var bits = 0.0, time = 0.0
            for i in start ..< min(sizes.count, durations.count) {
                bits += Double(sizes[i]) * 8
                time += durations[i]
                if time > high { break }
                if time >= low { peak = max(peak, bits / time) }
            }
        }
        if peak > 0 { self.peak = max(1, Int(peak.rounded(.up))) }
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
