import Foundation
import KASRedis

/// `kas store migrate`: copies the single-node state of a data directory (docs/kas.md "Data
/// directory") into the Redis store several nodes share (docs/kas.md "Scale-out with Redis"):
/// the media store's sessions, first-play records and stream limits, the playbacks (still
/// sealed) and the licence URLs' key, the catalog, and the offline licences. The SQLite files
/// are only read (their schema brought up to date). Every write is an upsert that keeps what
/// the target already holds where it must (an earlier first play stays, a licence URL key
/// already in Redis stays), so running it again, or after nodes started writing to Redis,
/// changes nothing it should not. Rate-limit buckets are not copied (they refill within a
/// minute).
package enum StoreMigration {
    /// What was copied.
    public struct Counts: Sendable, Equatable {
        public var sessions = 0
        public var firstPlays = 0
        public var streamLimits = 0
        public var playbacks = 0
        public var catalogEntries = 0
        public var offlineLicenses = 0
    }

    /// Copies the SQLite state of `configuration.dataDirectory` into the Redis of
    /// `configuration.store` (checked first as `kas serve` checks it: reachable, password
    /// accepted, `noeviction`). A failure names the file or the store by its redacted URL, never
    /// the password.
    public static func migrate(_ configuration: KASConfiguration) throws(KASApplicationError) -> Counts {
        guard let url = configuration.store.url else {
            throw KASApplicationError("no Redis store to copy into: name it with --to redis://host:port/db")
        }
        let dataDirectory = configuration.dataDirectory
        let layout = KASDataDirectory(dataDirectory)
        guard FileManager.default.fileExists(atPath: layout.mediaStore) else {
            throw KASApplicationError("no media store in '\(dataDirectory)' (media.sqlite): nothing to migrate; check --data-dir")
        }
        // Records keyed by subject alone would carry that keying into Redis: opening the data
        // directory as `kas serve` would refuses them with the `kas store rekey` to run first.
        var source = configuration
        source.store.url = nil
        try KASStateStores.open(source, layout: layout, poolSize: 1).close()
        let target = try KASStateStores.open(configuration, layout: layout, poolSize: 1)
        defer { target.close() }
        guard let media = target.media as? RedisMediaStore, let playbacks = target.playbacks as? RedisPlaybackStore else {
            throw KASApplicationError("the store \(url.redacted) did not open as a Redis store")
        }
        var counts = Counts()
        try copy("the media store '\(layout.mediaStore)'", to: url) { () throws(StoreError) in
            let source = try SQLiteMediaStore(path: layout.mediaStore)
            defer { source.close() }
            let records = try source.exportRecords()
            try media.importRecords(records)
            counts.sessions = records.sessions.count
            counts.firstPlays = records.firstPlays.count
            counts.streamLimits = records.streamLimits.count
        }
        try copy("the playbacks in '\(layout.mediaStore)'", to: url) { () throws(StoreError) in
            let source = try SQLiteMediaStore(path: layout.mediaStore)
            defer { source.close() }
            for playback in try SQLitePlaybackStore.exportPlaybacks(from: source) {
                try playbacks.importPlayback(playback)
                counts.playbacks += 1
            }
            if let key = try LicenseURLKeyFile.read(layout.licenseURLKey) { try playbacks.importLicenseURLKey(key) }
        }
        try copy("the catalog in '\(layout.mediaStore)'", to: url) { () throws(StoreError) in
            let source = try SQLiteCatalog(path: layout.mediaStore)
            defer { source.close() }
            for entry in try source.entries() {
                try target.catalog.put(entry)
                counts.catalogEntries += 1
            }
        }
        if FileManager.default.fileExists(atPath: layout.offlineStore) {
            try copy("the offline licences in '\(layout.offlineStore)'", to: url) { () throws(StoreError) in
                let source = try SQLiteOfflineStore(path: layout.offlineStore)
                defer { source.close() }
                for license in try source.allLicenses() {
                    try target.offline.importLicense(license)
                    counts.offlineLicenses += 1
                }
            }
        }
        return counts
    }

    /// Runs one copy step; a store failure names what was being copied and the target.
    private static func copy(_ what: String, to url: RedisURL,
                             _ body: () throws(StoreError) -> Void) throws(KASApplicationError) {
        do {
            try body()
        } catch {
            throw KASApplicationError("cannot copy \(what) to \(url.redacted): \(error.reason)")
        }
    }
}
