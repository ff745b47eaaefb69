import Foundation
import MediaDRMHLS

/// Follows the media playlists of a live tdf-hls stream (docs/live.md, "The player"): picks the
/// start (three target durations behind the live edge, RFC 8216 §6.3.3, or the oldest listed
/// segment), then hands out each component's segments in media-sequence order, reloading a
/// playlist only when the segment asked for is not listed yet and only on the RFC 8216 §6.3.4
/// schedule: the target duration after a load that changed the playlist (or the first), half
/// of it after one that did not, and `maximumUnchangedReloads` unchanged loads in a row end the
/// playback. A segment is never skipped or repeated: one that left the playlist before it was
/// fetched ends the playback with an error naming it. Every component starts at the same media
/// sequence number (the packager cuts all of them at once). `--duration` is counted on the first
/// component's `EXTINF`s; the same segments of every component are played.
final class LivePlaylistFollower: @unchecked Sendable {
    private struct Playlist {
        let name: String
        let component: String
        var listed: [Int: LiveSegment] = [:]
        var oldest = 0
        var newest = -1
        var endList = false
        var targetDuration = 0.0
        var lastBytes: Data?
        var nextLoad = -Double.infinity
        var unchanged = 0
    }

    /// The largest `EXT-X-MEDIA-SEQUENCE` followed: sequence arithmetic never overflows, and a
    /// stream of 1-s segments would take 285 million years to reach it.
    static let maximumSequence = 1 << 53

    private let loader: any ResourceLoader
    private let options: LivePlayOptions
    private let stopped: @Sendable () -> Bool
    private let lock = NSLock()
    private var playlists: [Playlist]
    private(set) var startSequence: Int?
    /// The first component's media seconds in `start ..< next`.
    private var mediaCounted = (next: 0, seconds: 0.0)
    /// The first sequence number after `--duration` seconds of media, once counted.
    private var endSequence: Int?
    /// The latest playlist loads (at most `keptLoads`), as (component index, `now()` when it
    /// began), for the schedule tests.
    private(set) var loads: [(component: Int, at: Double)] = []
    static let keptLoads = 1024

    /// `playlists`: each component's media playlist name and its id.
    init(loader: any ResourceLoader, playlists: [(name: String, component: String)], options: LivePlayOptions,
         stopped: @escaping @Sendable () -> Bool = { false }) {
        self.loader = loader
        self.playlists = playlists.map { Playlist(name: $0.name, component: $0.component) }
        self.options = options
        self.stopped = stopped
    }

    /// Loads the first component's playlist and picks the start sequence number.
    func start() throws(PlaybackError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        do {
            if let startSequence { return startSequence }
            guard !playlists.isEmpty else { throw PlaybackError(.invalidSource, "the live stream lists no media playlist") }
            try reload(0)
            let first = playlists[0]
            guard first.newest >= first.oldest else {
                throw PlaybackError(.invalidSource, "the \(first.component) live playlist lists no segment yet; try again shortly")
            }
            var start = first.oldest
            if !options.fromStart {
                // RFC 8216 §6.3.3: no segment that starts less than three target durations from the end.
                var fromEnd = 0.0
                start = first.newest
                while start > first.oldest, fromEnd + (first.listed[start]?.duration ?? 0) < 3 * first.targetDuration {
                    fromEnd += first.listed[start]?.duration ?? 0
                    start -= 1
                }
            }
            startSequence = start
            mediaCounted = (start, 0)
            return start
        }
    }

    /// Segment `index` (from the start) of component `component`, waiting for it to be listed;
    /// nil after the last one to play (`EXT-X-ENDLIST` or `--duration`). Its `mapURI` says which
    /// init it needs: a new one after a restart whose encoder changed its tracks
    /// (`LiveTDFSegments` ends the output's part there).
    func segment(component: Int, index: Int) throws(PlaybackError) -> LiveSegment? {
        lock.lock()
        defer { lock.unlock() }
        do {
            guard let start = startSequence, playlists.indices.contains(component) else { return nil }
            let sequence = start + index
            guard try isWithinDuration(sequence) else { return nil }
            return try listing(component, sequence)
        }
    }

    /// Whether segment `sequence` starts before `--duration` seconds of the first component's media.
    private func isWithinDuration(_ sequence: Int) throws(PlaybackError) -> Bool {
        guard let limit = options.duration else { return true }
        while endSequence == nil, mediaCounted.next < sequence {
            guard let segment = try listing(0, mediaCounted.next) else { return true }
            mediaCounted = (mediaCounted.next + 1, mediaCounted.seconds + segment.duration)
            if mediaCounted.seconds >= limit { endSequence = mediaCounted.next }
        }
        return endSequence.map { sequence < $0 } ?? true
    }

    /// `sequence` of `component`, reloading its playlist on the schedule until it is listed;
    /// nil when the playlist ended before it.
    private func listing(_ component: Int, _ sequence: Int) throws(PlaybackError) -> LiveSegment? {
        while true {
            let playlist = playlists[component]
            if let segment = playlist.listed[sequence] { return segment }
            if playlist.lastBytes != nil {
                if sequence < playlist.oldest {
                    throw PlaybackError(.io, "\(playlist.component) segment \(sequence) left the live playlist before it was "
                                        + "fetched (the playlist now starts at \(playlist.oldest)); the player fell behind "
                                        + "the stream's window: play again, or ask for a longer --dvr on the packager")
                }
                if playlist.endList { return nil }
            }
            try reload(component)
        }
    }

    /// Loads `component`'s playlist no earlier than its schedule allows.
    private func reload(_ component: Int) throws(PlaybackError) {
        let clock = options.clock
        if clock.now() < playlists[component].nextLoad { clock.sleep(until: playlists[component].nextLoad) }
        if stopped() { throw PlaybackError(.stopped, "the playback was stopped") }
        let began = clock.now()
        if loads.count == Self.keptLoads { loads.removeFirst() }
        loads.append((component, began))
        var playlist = playlists[component]
        let bytes = try loader.load(playlist.name, maxBytes: TDFHLSStream.maximumPlaylistBytes)
        if bytes == playlist.lastBytes {
            playlist.unchanged += 1
            playlist.nextLoad = began + playlist.targetDuration / 2
            playlists[component] = playlist
            guard playlist.unchanged < options.maximumUnchangedReloads else {
                throw PlaybackError(.io, "the \(playlist.component) live playlist did not change in \(playlist.unchanged) "
                                    + "reloads (RFC 8216 §6.3.4 schedule): the stream stalled or its packager stopped")
            }
            return
        }
        let media: HLSMediaPlaylist
        do {
            media = try HLSParser.parseMedia(bytes)
        } catch {
            throw PlaybackError(.invalidSource, "the \(playlist.component) live playlist is not a valid HLS media playlist")
        }
        guard media.targetDuration > 0, media.segments.count <= TDFHLSStream.maximumSegments,
              (0...Self.maximumSequence).contains(media.mediaSequence ?? 0),
              media.segments.allSatisfy({ $0.byteRange == nil && $0.uri.hasSuffix(".tdf") }) else {
            throw PlaybackError(.invalidSource, "the \(playlist.component) live playlist is not a tdf-hls media playlist "
                                + "(a target duration, a media sequence number up to \(Self.maximumSequence) and whole .tdf segments)")
        }
        let segments = LiveSegment.listed(in: media)
        if playlist.lastBytes != nil, let first = segments.first, first.sequence < playlist.oldest {
            let previous = playlist.oldest
            throw PlaybackError(.invalidSource, "the \(playlist.component) live playlist's EXT-X-MEDIA-SEQUENCE went back "
                                + "(from \(previous) to \(first.sequence))")
        }
        playlist.listed = Dictionary(segments.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        playlist.oldest = segments.first?.sequence ?? (media.mediaSequence ?? 0)
        playlist.newest = segments.last?.sequence ?? playlist.oldest - 1
        playlist.endList = media.endList
        playlist.targetDuration = Double(media.targetDuration)
        playlist.lastBytes = bytes
        playlist.unchanged = 0
        playlist.nextLoad = began + playlist.targetDuration
        playlists[component] = playlist
    }
}
