import Foundation
import MediaDRMJSON

/// Each title's first offline play (`titles/NAME/first-play.sealed`, docs/offline.md): the
/// playback window counts from it. The record exists from the download on (`{}` until the first
/// play), so a missing record is a deleted one, never "not played yet".
extension OfflineLibrary {
    /// For an offline play: the title's first offline play, nil when there was none. A title an
    /// earlier player stored (no sealed record yet) refuses with `libraryUpgrade`; a missing or
    /// broken record with `sealedRecord`.
    func firstPlay(of title: OfflineTitle) throws(OfflineError) -> Int64? {
        let contents = try read(.firstPlay(title.name))
        if case .missing = contents, title.storedByEarlierPlayer { throw Self.storedByEarlierPlayer(title: title.name) }
        guard let record = contents.object, case .some(let first) = Self.firstPlay(record) else {
            throw Self.unsealed("the title's first-play record (which starts its playback window)", title: title.name)
        }
        return first
    }

    /// The title's first offline play as far as the library can tell, for the report to the key
    /// service (renewal, release) and the listing: the sealed record's, else what an earlier
    /// player wrote in plain, else none. A deleted record cannot be told from a title never
    /// played: the key service's own first-play record is what bounds a rental online.
    public func knownFirstPlay(of title: OfflineTitle) -> Int64? {
        if let record = try? read(.firstPlay(title.name)).object, case .some(let first) = Self.firstPlay(record) {
            return first
        }
        return title.earlierFirstPlayedAt
    }

    /// The record's first play: `.some(nil)` for a title not played yet, nil for a record of
    /// another shape.
    private static func firstPlay(_ record: JSONObject) -> Int64?? {
        do {
            return .some(try record.optionalInt64("firstPlayedAt"))
        } catch {
            return nil
        }
    }

    /// Seals the title's first offline play (nil: not played yet).
    func recordFirstPlay(_ name: String, at time: Int64?) throws(OfflineError) {
        try write(JSONObject(time.map { [("firstPlayedAt", .number(JSONNumber($0)))] } ?? []), to: .firstPlay(name))
    }
}
