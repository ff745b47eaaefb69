import MediaDRMMedia

/// The options of `packager live` beyond the package's own (KAS, policy, segment duration).
public struct LiveOptions: Sendable {
    public var package: PackageOptions
    /// Segments the media playlists list at least (`--window`).
    public var window: Int = 6
    /// Seconds the media playlists cover at least, for seeking back (`--dvr`).
    public var dvrSeconds: Double = 0
    /// Seconds of stream time per key period (`--key-period`), bound into each segment's policy.
    public var keyPeriodSeconds: Int64 = 600

    public init(package: PackageOptions) { self.package = package }

    func check() throws(PackagerError) {
        try package.checkSegmentDuration()
        try package.checkTDFKASURL()
        guard (1 ... 10_000).contains(window) else { throw PackagerError(.invalidArgument, "the window must be 1 to 10000 segments") }
        guard dvrSeconds >= 0, dvrSeconds.isFinite, dvrSeconds <= 7 * 86_400 else {
            throw PackagerError(.invalidArgument, "the DVR range must be 0 to 604800 seconds")
        }
        guard (1 ... MediaRules.maxLivePeriodSeconds).contains(keyPeriodSeconds) else {
            throw PackagerError(.invalidArgument, "the key period must be 1 to \(MediaRules.maxLivePeriodSeconds) seconds")
        }
        if package.media?.isEmpty == false || package.classification != nil || package.allowZIP64 {
            throw PackagerError(.invalidArgument, "live takes its media rules and classification from the policy file")
        }
    }
}

/// What one `packager live` run did.
public struct LiveSummary: Sendable, Equatable {
    public var output: String
    public var policyUUID: String
    /// Whether it continued a stream found in the directory.
    public var resumed: Bool
    /// The media sequence numbers it wrote.
    public var sequences: Range<Int>
    /// The key periods its segments belong to, in order.
    public var periods: [Int64]
    /// Segments listed by the media playlists at the end, and on disk.
    public var listed: Int
    public var onDisk: Int
    /// Audio packets dropped because they started before the stream or inside the previous run's audio.
    public var droppedAudioPackets: Int
    public var warnings: [String]
}
