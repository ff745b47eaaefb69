/// Progress of a playback, for a progress line on stderr. Carries no secret: no token, key,
/// session id or policy uuid.
public enum PlaybackEvent: Sendable, Equatable {
    /// The source is an fps-v2 package that passed every admission check.
    case admitted(checks: Int, components: [String], segments: Int)
    /// A tdf-hls stream was recognised.
    case tdfHLS(components: [String], segments: Int)
    /// The key service's FairPlay certificate was fetched (`bytes`), or it has none (nil).
    case certificate(bytes: Int?)
    /// A component's media session started.
    case sessionStarted(component: String)
    /// A component's key arrived and unwrapped, `seconds` after its session start began.
    case keyDelivered(component: String, seconds: Double)
    /// A bulk OpenTDF rewrap delivered `count` segment keys.
    case segmentKeysDelivered(count: Int, seconds: Double)
    /// The key service's rate limit held a bulk rewrap back; it is sent again in `seconds`
    /// (the server's `Retry-After`).
    case rateLimited(seconds: Int)
    /// The first clear byte was written, `seconds` after the playback began.
    case firstClearByte(seconds: Double)
    /// Every segment was written.
    case finished(bytes: UInt64, seconds: Double)
    /// A live tdf-hls stream: playing from media sequence `sequence`, the oldest listed segment
    /// when `fromStart`, else three target durations behind the live edge.
    case liveStarted(sequence: Int, fromStart: Bool)
    /// A live segment of the first component (`seconds` of media) went to the output;
    /// `latency` is the wall clock then less its `EXT-X-PROGRAM-DATE-TIME` (nil without one).
    case liveSegment(sequence: Int, seconds: Double, latency: Double?)
    /// A live segment names a new init (an encoder restarted with other tracks): the output's
    /// part `part` (a new file, `LivePartedOutput`) begins with segment `sequence`.
    case livePart(part: Int, sequence: Int)
    /// The live playback ended (`EXT-X-ENDLIST` or `--duration`): segments and media seconds
    /// written, and the median and maximum latency.
    case liveEnded(segments: Int, seconds: Double, medianLatency: Double?, maxLatency: Double?)
}
