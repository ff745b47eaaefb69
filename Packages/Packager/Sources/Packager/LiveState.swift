import Foundation
import MediaDRMEncoding

/// What a restarted `packager live` needs to continue a stream in the same directory: the media
/// sequence, the key periods' clock, the policy uuid, where each timeline ended and the segments
/// still on disk. Written atomically (`AtomicFileWriter`) after each segment's files and before
/// the playlists that name it, so a crash never leaves a playlist naming a segment the state
/// does not know. It is the packager's own file (`live-state.json`), read with Foundation's
/// decoder and refused whole when it does not decode.
struct LiveState: Codable, Equatable {
    static let fileName = "live-state.json"
    static let currentVersion = 1

    struct Segment: Codable, Equatable {
        /// The media sequence number, also the file number (`<id>-segment<N>.tdf`).
        var sequence: Int
        var duration: Double
        /// Seconds from the stream's start (the video timeline).
        var start: Double
        var programDateTime: String
        var period: Int64
        var periodStart: Int64
        /// The first segment of a run after a restart.
        var discontinuity: Bool
        /// EXT-X-DISCONTINUITY tags up to and including this segment's, since the stream began.
        var discontinuities: Int
        /// Which init segments it needs (`LiveState.initName`).
        var initEpoch: Int
    }

    var version = LiveState.currentVersion
    var policyUUID: String
    /// Unix milliseconds of the stream's time 0 (its program-date-time clock).
    var streamStart: Int64
    var keyPeriod: Int64
    var components: [String]
    var nextSequence = 0
    var initEpoch = 0
    var targetDuration: Int
    var videoTimescale: UInt32
    var videoEnd: Int64 = 0
    var audioTimescale: UInt32?
    var audioEnd: Int64 = 0
    /// Oldest first: the listed segments, and before them those waiting to be deleted.
    var segments: [Segment] = []
    var ended = false

    /// `<id>-init.mp4` for the first encoder run's init, `<id>-init-<epoch>.mp4` after a restart
    /// whose encoder describes its tracks differently.
    static func initName(_ id: String, epoch: Int) -> String { epoch == 0 ? "\(id)-init.mp4" : "\(id)-init-\(epoch).mp4" }

    static func path(in directory: String) -> String { (directory as NSString).appendingPathComponent(fileName) }

    static func load(from directory: String) throws(PackagerError) -> LiveState? {
        let path = path(in: directory)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 else {
            throw PackagerError(.io, "\(path) could not be read")
        }
        let state: LiveState
        do { state = try JSONDecoder().decode(LiveState.self, from: data) } catch {
            throw PackagerError(.malformedInput, "\(path) is not a live state this packager wrote; move it away to start a new stream")
        }
        guard state.version == currentVersion else {
            throw PackagerError(.unsupportedInput, "\(path) has version \(state.version); this packager reads version \(currentVersion)")
        }
        return state
    }

    func save(in directory: String) throws(PackagerError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try AtomicFileWriter.write(try encoder.encode(self), to: Self.path(in: directory))
        } catch {
            throw PackagerError(.io, "the live state could not be written to \(directory)")
        }
    }
}
