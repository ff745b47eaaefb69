/// Which segments a live playlist lists and which stay on disk. The playlist lists the newest
/// `window` segments, or more when that is needed to cover `dvr` seconds. A segment that leaves
/// the playlist stays on disk while as many newer segments are published as the playlist lists
/// (RFC 8216 §6.2.2: a client that loaded the previous playlist may still fetch it for about the
/// playlist's duration), then it is deleted.
struct LiveWindow: Sendable, Equatable {
    var window: Int
    var dvr: Double

    /// How many of the newest of `durations` (oldest first) the playlist lists.
    func listedCount(_ durations: [Double]) -> Int {
        var count = 0, covered = 0.0
        for duration in durations.reversed() {
            if count >= window, covered >= dvr { break }
            count += 1
            covered += duration
        }
        return count
    }

    /// How many of the newest stay on disk: the listed ones and as many again.
    func keptCount(_ durations: [Double]) -> Int { min(durations.count, 2 * listedCount(durations)) }
}
