import Foundation
import MediaDRMJSON

/// The library's clock high-water mark (`clock.sealed`, docs/offline.md): the latest wall-clock
/// time the library has seen, so that setting the clock back does not extend a licence. It is
/// sealed, so deleting or editing it does not reset it: an offline play then refuses until an
/// online renewal re-creates it from a time the key service vouched for (the licence's `iat`).
extension OfflineLibrary {
    /// A clock earlier than the high-water mark by more than this is a clock set back; less is
    /// the ordinary drift of a system clock corrected by NTP.
    public static let clockTolerance: Int64 = 300

    /// Where an earlier player kept the mark in plain JSON; folded into the sealed record (never
    /// lowering it) and removed at the first online renewal or download.
    static let earlierClockName = "clock.json"

    /// For an offline play: checks `now` against the sealed mark and raises the mark to it.
    /// Returns the time to judge licences by, the later of `now` and the mark. A missing or
    /// broken record refuses (`title` names what to renew).
    func observeClock(now: Int64, playing title: String) throws(OfflineError) -> Int64 {
        let contents = try read(.clock)
        guard let mark = contents.object.flatMap(Self.mark) else {
            if case .missing = contents, FileManager.default.fileExists(atPath: path + "/" + Self.earlierClockName) {
                throw Self.storedByEarlierPlayer(title: title)
            }
            throw Self.unsealed("the library's clock record (the latest time it has seen, which stops a clock set back)",
                                title: title)
        }
        return try advance(mark: mark, to: now)
    }

    /// For a download or a renewal: as `observeClock(now:playing:)` when the record is intact;
    /// when it is missing or broken, `now` as it is (`raiseClock(to:)` re-creates the record
    /// once the key service's licence verified).
    func observeClockOnline(now: Int64) throws(OfflineError) -> Int64 {
        guard let mark = try read(.clock).object.flatMap(Self.mark) else { return now }
        return try advance(mark: mark, to: now)
    }

    /// After a licence from the key service verified: the mark rises to `time` (the caller
    /// passes the later of its clock and the licence's issue time, which the key service
    /// signed). A missing or broken record is re-created from it, and an earlier player's
    /// plain mark is folded in, never lowering the mark, and removed.
    func raiseClock(to time: Int64) throws(OfflineError) {
        var mark = time
        if let sealed = try read(.clock).object.flatMap(Self.mark) { mark = max(mark, sealed) }
        let earlierPath = path + "/" + Self.earlierClockName
        if let data = try? LibraryFiles.read(earlierPath, maxBytes: 4096),
           case .object(let object)? = try? JSONParser.parse(data), let earlier = Self.mark(object) {
            mark = max(mark, earlier)
        }
        try write(JSONObject([("highWaterMark", .number(JSONNumber(mark)))]), to: .clock)
        LibraryFiles.remove(earlierPath)
    }

    private func advance(mark: Int64, to now: Int64) throws(OfflineError) -> Int64 {
        if now + Self.clockTolerance < mark {
            throw OfflineError(.clockSetBack, "the system clock is earlier than a time this library has already seen: set the clock right")
        }
        if now > mark { try write(JSONObject([("highWaterMark", .number(JSONNumber(now)))]), to: .clock) }
        return max(now, mark)
    }

    private static func mark(_ record: JSONObject) -> Int64? { try? record.requireInt64("highWaterMark") }
}
