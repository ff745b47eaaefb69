import Foundation
@testable import Client

/// A clock whose time moves only when the code under test sleeps (or the test advances it).
final class SteppedLiveClock: LiveClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time = 0.0
    /// The wall clock is the monotonic one from this Unix time.
    let unixOrigin = 1_800_000_000.0

    func unixTime() -> Double { lock.withLock { unixOrigin + time } }
    func now() -> Double { lock.withLock { time } }
    func sleep(until deadline: Double) { lock.withLock { time = max(time, deadline) } }
    func advance(by seconds: Double) { lock.withLock { time += seconds } }
}

/// A live packager as the follower sees it: segment `n` (of `duration` seconds) is published at
/// `(n + 1) · publishEvery` (default `duration`) on the clock, each media playlist lists the newest `window` published
/// segments, and `EXT-X-ENDLIST` follows once all `total` are published. `stallAfter` stops
/// publishing after that many segments (no end list); `newInitAt` starts a discontinuity with
/// another init at that sequence, `discontinuityAt` one with the same init.
struct SimulatedLiveStream: ResourceLoader {
    let clock: SteppedLiveClock
    var duration = 2.0
    /// Seconds between publications; `duration` unless the packager runs late.
    var publishEvery: Double?
    var window = 6
    var total = 15
    var stallAfter: Int?
    var newInitAt: Int?
    var discontinuityAt: Int?
    /// Every playlist text served, with its name.
    let served = ServedPlaylists()

    func load(_ name: String, maxBytes: Int) throws(PlaybackError) -> Data {
        guard name.hasSuffix(".m3u8") else { throw PlaybackError(.io, "\(name) could not be fetched (HTTP 404)") }
        let id = String(name.dropLast(5))
        let text = playlist(id, at: clock.now())
        served.append(name, text)
        return Data(text.utf8)
    }

    func published(at time: Double) -> Int { min(stallAfter ?? total, max(0, Int((time / (publishEvery ?? duration)).rounded(.down)))) }

    func playlist(_ id: String, at time: Double) -> String {
        let count = published(at: time)
        let first = max(0, count - window)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(Int(duration))", "#EXT-X-MEDIA-SEQUENCE:\(first)",
                     "#EXT-X-INDEPENDENT-SEGMENTS"]
        var map = ""
        for n in first..<max(first, count) {
            let segmentMap = newInitAt.map { n >= $0 } == true ? "\(id)-init-1.mp4" : "\(id)-init.mp4"
            if segmentMap != map {
                if !map.isEmpty || n == newInitAt { lines.append("#EXT-X-DISCONTINUITY") }
                lines.append("#EXT-X-MAP:URI=\"\(segmentMap)\"")
                map = segmentMap
            } else if n == discontinuityAt {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            let date = Date(timeIntervalSince1970: clock.unixOrigin + Double(n) * duration)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(formatter.string(from: date))")
            lines.append(String(format: "#EXTINF:%.5f,", duration))
            lines.append("\(id)-segment\(n).tdf")
        }
        if count == total { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}

final class ServedPlaylists: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(name: String, text: String)] = []
    var all: [(name: String, text: String)] { lock.withLock { entries } }
    func append(_ name: String, _ text: String) { lock.withLock { entries.append((name, text)) } }
}
