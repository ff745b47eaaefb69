/// How `player play` follows a live tdf-hls stream (docs/live.md, "The player").
public struct LivePlayOptions: Sendable {
    /// Start at the oldest listed segment (the start of the DVR range) instead of three target
    /// durations behind the live edge (RFC 8216 §6.3.3).
    public var fromStart = false
    /// Stop once this many seconds of media (the first component's `EXTINF`s) were written;
    /// nil plays until `EXT-X-ENDLIST`.
    public var duration: Double?
    /// Consecutive reloads that find a media playlist unchanged before the playback gives up
    /// (the stream stalled). With half a target duration between them (RFC 8216 §6.3.4), the
    /// default waits four target durations for a new segment.
    public var maximumUnchangedReloads = 8
    /// The wall clock for latency and the clock the reload schedule sleeps on.
    public var clock: any LiveClock

    public init(fromStart: Bool = false, duration: Double? = nil, clock: any LiveClock = SystemLiveClock()) {
        self.fromStart = fromStart
        self.duration = duration
        self.clock = clock
    }
}
