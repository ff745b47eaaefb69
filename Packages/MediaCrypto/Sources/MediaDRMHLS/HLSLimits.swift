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

    /// General HLS.
    public static let `default` = HLSLimits()

    /// fps-v2 §12: `maxManifestBytes` bounds every playlist; 4,093 segments per component (§4).
    /// The line bound follows from it: a dozen header lines plus two lines per segment.
    public static let fpsV2 = HLSLimits(maxBytes: 1_048_576, maxLines: 16 + 2 * 4_093, maxSegments: 4_093, maxAttributes: 16)
}
