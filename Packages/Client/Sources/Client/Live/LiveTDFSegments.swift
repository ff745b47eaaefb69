import Foundation

/// The segments of a live tdf-hls playback as the output pulls them: each listed by the
/// `LivePlaylistFollower` (waiting for the playlist when needed), its Standard TDF fetched and its
/// key rewrapped as a VOD segment's (`TDFSegmentKeys`: one rewrap per segment, verified before
/// use), so segments of every key period play alike. Each first-component segment written is
/// reported with its latency (`LiveLatency`).
final class LiveTDFSegments: ComponentSegments, @unchecked Sendable {
    typealias KeysForSegment = (_ component: String, _ segment: LiveSegment) -> TDFSegmentKeys

    private let follower: LivePlaylistFollower
    private let componentIDs: [String]
    private let keysFor: KeysForSegment
    private let clock: any LiveClock
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private let lock = NSLock()
    private var firstKeys: TDFSegmentKeys?
    private var mediaSessionID: String?
    private var latencies = LiveLatency()
    private var written = (segments: 0, seconds: 0.0)

    init(follower: LivePlaylistFollower, componentIDs: [String], clock: any LiveClock,
         progress: (@Sendable (PlaybackEvent) -> Void)?, keysFor: @escaping KeysForSegment) {
        self.follower = follower
        self.componentIDs = componentIDs
        self.clock = clock
        self.progress = progress
        self.keysFor = keysFor
    }

    /// The policy of the first segment played, whose archive is kept for its output.
    func firstPolicy() throws(PlaybackError) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let firstKeys { return try firstKeys.firstPolicy() }
        guard let first = try follower.segment(component: 0, index: 0) else {
            throw PlaybackError(.invalidSource, "the live stream has no segment to play")
        }
        let keys = keysFor(componentIDs[0], first)
        firstKeys = keys
        return try keys.firstPolicy()
    }

    /// Sends every rewrap from now on, the first segment's included, through this media session.
    func useMediaSession(_ sessionID: String) {
        lock.withLock { mediaSessionID = sessionID }
    }

    /// Segments written so far, the media seconds they hold and their latencies.
    var summary: (segments: Int, seconds: Double, latency: LiveLatency) {
        lock.withLock { (written.segments, written.seconds, latencies) }
    }

    func segment(component: Int, index: Int) throws(PlaybackError) -> [UInt8]? {
        guard componentIDs.indices.contains(component),
              let segment = try follower.segment(component: component, index: index) else { return nil }
        let (kept, sessionID) = lock.withLock { () -> (TDFSegmentKeys?, String?) in
            guard component == 0, index == 0 else { return (nil, mediaSessionID) }
            defer { firstKeys = nil }
            return (firstKeys, mediaSessionID)
        }
        let keys = kept ?? keysFor(componentIDs[component], segment)
        if let sessionID { keys.useMediaSession(sessionID) }
        let clear = try keys.clearSegment(component: 0, index: 0)
        if component == 0 {
            let latency = segment.programDate.map { clock.unixTime() - $0 }
            lock.withLock {
                written = (written.segments + 1, written.seconds + segment.duration)
                if let latency { latencies.record(latency) }
            }
            progress?(.liveSegment(sequence: segment.sequence, seconds: segment.duration, latency: latency))
        }
        return clear
    }
}
