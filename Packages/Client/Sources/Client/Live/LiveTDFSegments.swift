import Foundation

/// The segments of a live tdf-hls playback as the output pulls them: segment `index` of every
/// component listed by the `LivePlaylistFollower` (waiting for the playlists when needed), their
/// Standard TDFs fetched and their keys asked for in ONE rewrap (`TDFSegmentKeys`: verified
/// before use, as VOD segments), so segments of every key period play alike and a 2 s stream
/// costs one rewrap request per segment, not one per component. Each first-component segment
/// written is reported with its latency (`LiveLatency`).
///
/// The output is written in parts (docs/live.md, "The player"): a part starts at a segment and
/// plays the inits that segment names (`beginPart`); the first segment naming another init (a
/// restart whose encoder changed its tracks) ends the part (`partChange`), so one fMP4 never mixes
/// two inits. `segment(component:index:)` counts from the part's first segment.
final class LiveTDFSegments: ComponentSegments, @unchecked Sendable {
    /// The keys reader of one segment of each listed component (in component order).
    typealias KeysForSegments = (_ segments: [(component: String, segment: LiveSegment)]) -> TDFSegmentKeys

    /// Segment `index` of every component: each one's listing (nil after its end), the reader of
    /// the listed ones, and the components that have not taken theirs yet.
    private struct Batch {
        let segments: [LiveSegment?]
        let keys: TDFSegmentKeys
        var pending: Set<Int>
    }

    private let follower: LivePlaylistFollower
    private let componentIDs: [String]
    private let keysFor: KeysForSegments
    private let clock: any LiveClock
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private let lock = NSLock()
    private var batches: [Int: Batch] = [:]
    private var mediaSessionID: String?
    private var latencies = LiveLatency()
    private var written = (segments: 0, seconds: 0.0)
    /// The part being written: its first segment (from the start) and each component's init URI.
    private var partStart = 0
    private var partMaps: [String?] = []
    private var change: PartChange?

    /// Where a part ended because a segment names another init.
    struct PartChange: Sendable {
        /// The segment (from the start) that begins the next part.
        let index: Int
        /// "video segment 12 starts a new init segment (video-init-1.mp4 after video-init.mp4)".
        let description: String
    }

    init(follower: LivePlaylistFollower, componentIDs: [String], clock: any LiveClock,
         progress: (@Sendable (PlaybackEvent) -> Void)?, keysFor: @escaping KeysForSegments) {
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
        guard let keys = try batch(0)?.keys else {
            throw PlaybackError(.invalidSource, "the live stream has no segment to play")
        }
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

    /// Starts a part at segment `index` (from the start): the init URI its segment names per
    /// component (nil where that component lists none), or nil when no component has one.
    func beginPart(at index: Int) throws(PlaybackError) -> [String?]? {
        lock.lock()
        defer { lock.unlock() }
        guard let batch = try batch(index) else { return nil }
        partStart = index
        partMaps = batch.segments.map { $0?.mapURI }
        change = nil
        return partMaps
    }

    /// Where the part being written ended because a segment names another init, if it did.
    var partChange: PartChange? { lock.withLock { change } }

    /// Segment `index` of every component, listed and keyed once; nil when no component has one.
    private func batch(_ index: Int) throws(PlaybackError) -> Batch? {
        if let cached = batches[index] { return cached }
        var segments: [LiveSegment?] = []
        for component in componentIDs.indices { segments.append(try follower.segment(component: component, index: index)) }
        let listed = componentIDs.indices.compactMap { c in segments[c].map { (component: componentIDs[c], segment: $0) } }
        guard !listed.isEmpty else { return nil }
        let batch = Batch(segments: segments, keys: keysFor(listed), pending: Set(componentIDs.indices))
        batches[index] = batch
        return batch
    }

    func segment(component: Int, index: Int) throws(PlaybackError) -> [UInt8]? {
        guard componentIDs.indices.contains(component) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let index = partStart + index
        guard var batch = try batch(index) else { return nil }
        // A segment that needs another init ends the part; its batch stays for the next part.
        for (c, listed) in batch.segments.enumerated() {
            guard let listed, partMaps.indices.contains(c), listed.mapURI != partMaps[c] else { continue }
            change = PartChange(index: index, description: "\(componentIDs[c]) segment \(listed.sequence) starts a new init "
                                + "segment (\(listed.mapURI ?? "none") after \(partMaps[c] ?? "none"))")
            return nil
        }
        batch.pending.remove(component)
        batches[index] = batch.pending.isEmpty ? nil : batch
        guard let segment = batch.segments[component] else { return nil }
        if let mediaSessionID { batch.keys.useMediaSession(mediaSessionID) }
        // The reader holds only the listed components, in component order.
        let position = batch.segments[..<component].filter { $0 != nil }.count
        let clear = try batch.keys.clearSegment(component: position, index: 0)
        if component == 0 {
            let latency = segment.programDate.map { clock.unixTime() - $0 }
            written = (written.segments + 1, written.seconds + segment.duration)
            if let latency { latencies.record(latency) }
            progress?(.liveSegment(sequence: segment.sequence, seconds: segment.duration, latency: latency))
        }
        return clear
    }
}
