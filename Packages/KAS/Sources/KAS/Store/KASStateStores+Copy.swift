import Foundation

/// How many records `KASStateStores.copy(to:)` wrote.
public struct StateStoreCopyCounts: Sendable, Equatable, CustomStringConvertible {
    public var sessions = 0
    public var firstPlays = 0
    public var streamLimits = 0
    public var catalogEntries = 0
    public var offlineLicenses = 0

    public init() {}

    public var description: String {
        "\(sessions) sessions, \(firstPlays) first plays, \(streamLimits) stream limits, \(catalogEntries) catalog entries, "
            + "\(offlineLicenses) offline licences"
    }
}

extension KASStateStores {
    /// Copies every record of these stores into `target` (`kas store migrate`, docs/kas.md): the
    /// media store's sessions, first plays and stream limits (from a single node's SQLite into a
    /// Redis: `SQLiteMediaStore.exportRecords`, `RedisMediaStore.importRecords`), every catalog
    /// entry and every offline licence, each written as it is. Running it again writes the same
    /// records again and changes nothing (an earlier first play already in the target is kept).
    /// Playbacks are not copied: a single node's live only in its memory. A catalog entry whose
    /// media path another asset already holds in the target fails with `.constraint`.
    public func copy(to target: KASStateStores, now: Date = Date()) throws(StoreError) -> StateStoreCopyCounts {
        guard let source = media as? SQLiteMediaStore, let destination = target.media as? RedisMediaStore else {
            throw StoreError(.open, "records are copied from a data directory's SQLite store into a Redis store")
        }
        var counts = StateStoreCopyCounts()
        let records = try source.exportRecords()
        try destination.importRecords(records)
        counts.sessions = records.sessions.count
        counts.firstPlays = records.firstPlays.count
        counts.streamLimits = records.streamLimits.count
        for entry in try catalog.entries() {
            try target.catalog.put(entry, now: now)
            counts.catalogEntries += 1
        }
        for license in try offline.allLicenses() {
            try target.offline.importLicense(license)
            counts.offlineLicenses += 1
        }
        return counts
    }
}
