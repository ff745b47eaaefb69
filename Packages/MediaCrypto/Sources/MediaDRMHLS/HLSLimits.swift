/// Bounds applied before the parser allocates anything proportional to the input: the byte count
/// is checked first, lines are counted before they are split, and segment and attribute counts
/// are checked before each append.
public struct HLSLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxLines: Int
    public var maxSegments: Int
    public var maxAttributes: Int

    public init(maxBytes: Int = 4 << 20, maxLines: Int = 200_000, maxSegments: Int = 100_000, maxAttributes: Int = 64) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
        self.maxSegments = maxSegments
        self.maxAttributes = maxAttributes
    }

    /// General HLS. A profile's limits live with the profile (`HLSLimits.fpsV2` in MediaDRMFPSv2).
    public static let `default` = HLSLimits()
}
