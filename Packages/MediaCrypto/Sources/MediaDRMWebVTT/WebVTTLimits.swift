/// The bounds a WebVTT file must keep before anything is allocated for it: a subtitle file is
/// small, so anything far larger is refused rather than read.
public struct WebVTTLimits: Sendable, Equatable {
    public var maximumBytes: Int
    public var maximumCues: Int
    public var maximumLineBytes: Int

    public init(maximumBytes: Int = 16 << 20, maximumCues: Int = 100_000, maximumLineBytes: Int = 64 << 10) {
        self.maximumBytes = maximumBytes
        self.maximumCues = maximumCues
        self.maximumLineBytes = maximumLineBytes
    }
}
