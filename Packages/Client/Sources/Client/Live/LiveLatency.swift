/// Live latency (docs/live.md, "The player"): for each segment of the first component, the wall
/// clock when its clear fragment goes to the output less its `EXT-X-PROGRAM-DATE-TIME`;
/// summarised as the median and the maximum.
public struct LiveLatency: Sendable, Equatable {
    /// Each segment's latency in seconds, in output order.
    public private(set) var samples: [Double] = []

    public init() {}

    mutating func record(_ seconds: Double) { samples.append(seconds) }

    /// The middle sample (the mean of the two middle ones for an even count); nil without samples.
    public var median: Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The largest sample; nil without samples.
    public var maximum: Double? { samples.max() }
}
