import Foundation
import KASRedis

/// `kas store rekey --issuer ISS` (docs/kas.md "Viewers keyed by issuer and subject"): moves
/// every per-viewer record a store keeps by subject alone (`Identity.subjectKey`, earlier
/// versions) to the viewer of issuer ISS with that subject: old key k becomes
/// `Identity.storeKey(issuer: ISS, subjectKey: k)`, computed from k alone, since stores never
/// held the subject. Media sessions, first plays, rate buckets (`<kind>:<k>`) and offline
/// licences (with the Redis sets keyed by them) move; playbacks need nothing (the in-memory ones
/// end with the process, Redis seals the identity itself and its key is computed on reading).
///
/// Each store marks itself rekeyed in the same step (`ViewerKeyScheme`), so a second run finds
/// nothing to do and is refused, never hashing a key twice. SQLite: one transaction per file
/// (`media.sqlite`, `offline.sqlite`; a run stopped between them finishes the other on the next
/// run). Redis: one script after a scan, which checks every key it was given before writing any.
package enum StoreRekey {
    /// What was moved.
    public struct Counts: Sendable, Equatable {
        public var sessions = 0
        public var firstPlays = 0
        public var rateBuckets = 0
        public var offlineLicenses = 0
    }

    /// Rekeys the stores `configuration` names (the data directory's SQLite files, or the Redis
    /// of `store.url`) to `issuer`. Refused when every store keys by issuer and subject already.
    public static func rekey(_ configuration: KASConfiguration, issuer: String,
                             now: Date = Date()) throws(KASApplicationError) -> Counts {
        guard !issuer.isEmpty else { throw KASApplicationError("the issuer to rekey to is empty") }
        if let url = configuration.store.url {
            return try rekeyRedis(url, timeout: TimeInterval(configuration.store.timeoutSeconds), issuer: issuer, now: now)
        }
        return try rekeySQLite(KASDataDirectory(configuration.dataDirectory), issuer: issuer, now: now)
    }

    /// The key of one per-viewer value: a viewer key itself, or a rate bucket `<kind>:<viewer
    /// key>` whose tail is a 64-digit hex key (nil for any other bucket, which names no viewer).
    static func rekeyed(_ value: String, issuer: String, rateBucket: Bool) -> String? {
        guard rateBucket else { return Identity.storeKey(issuer: issuer, subjectKey: value) }
        guard let colon = value.lastIndex(of: ":") else { return nil }
        let key = value[value.index(after: colon)...]
        guard key.utf8.count == 64, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return String(value[...colon]) + Identity.storeKey(issuer: issuer, subjectKey: String(key))
    }

    /// Why nothing was rekeyed, naming the issuer a store was rekeyed to when it records one.
    static func nothingToDo(_ store: String, rekeyedIssuer: String?) -> KASApplicationError {
        KASApplicationError("\(store) keys viewers by issuer and subject already"
            + (rekeyedIssuer.map { " (rekeyed to issuer \($0))" } ?? "") + ": nothing to rekey")
    }

    // MARK: SQLite

    private static func rekeySQLite(_ layout: KASDataDirectory, issuer: String, now: Date) throws(KASApplicationError) -> Counts {
        guard FileManager.default.fileExists(atPath: layout.mediaStore) else {
            throw KASApplicationError("no media store in '\(layout.path)' (media.sqlite): nothing to rekey; check --data-dir")
        }
        var counts = Counts()
        var already: [(store: String, issuer: String?)] = []
        let media = "the media store '\(layout.mediaStore)'"
        let outcome = try sqliteStep(media) { () throws(StoreError) in
            try SQLiteMediaStore(path: layout.mediaStore).close()   // brings the file to the current schema
            return try SQLiteViewerRekey.run(path: layout.mediaStore, SQLiteViewerRekey.mediaStore, issuer: issuer, now: now)
        }
        switch outcome {
        case .rekeyed(let rows):
            counts.sessions = rows[0]
            counts.firstPlays = rows[1]
            counts.rateBuckets = rows[2]
        case .already(let rekeyedIssuer):
            already.append((media, rekeyedIssuer))
        }
        let offline = "the offline store '\(layout.offlineStore)'"
        if FileManager.default.fileExists(atPath: layout.offlineStore) {
            let outcome = try sqliteStep(offline) { () throws(StoreError) in
                try SQLiteOfflineStore(path: layout.offlineStore).close()
                return try SQLiteViewerRekey.run(path: layout.offlineStore, SQLiteViewerRekey.offlineStore, issuer: issuer, now: now)
            }
            switch outcome {
            case .rekeyed(let rows): counts.offlineLicenses = rows[0]
            case .already(let rekeyedIssuer): already.append((offline, rekeyedIssuer))
            }
        } else {
            already.append((offline, nil))
        }
        if already.count == 2 { throw nothingToDo("'\(layout.path)'", rekeyedIssuer: already[0].issuer ?? already[1].issuer) }
        return counts
    }

    private static func sqliteStep(_ store: String, _ body: () throws(StoreError) -> SQLiteViewerRekey.Outcome)
        throws(KASApplicationError) -> SQLiteViewerRekey.Outcome {
        do {
            return try body()
        } catch {
            throw KASApplicationError("cannot rekey \(store): \(error.reason)")
        }
    }

    // MARK: Redis

    private static func rekeyRedis(_ url: RedisURL, timeout: TimeInterval, issuer: String,
                                   now: Date) throws(KASApplicationError) -> Counts {
        let client = RedisClient(url: url, poolSize: 1, timeout: timeout)
        defer { client.close() }
        do {
            try client.checkServer()
        } catch {
            throw KASApplicationError("cannot use the state store: \(error.reason)")
        }
        // The prefix every store `KASStateStores.openRedis` opens uses.
        let rekey = RedisViewerRekey(client: client, prefix: RedisMediaStore(client: client).keyPrefix)
        let outcome: RedisViewerRekey.Outcome
        do {
            outcome = try rekey.run(issuer: issuer, now: now)
        } catch {
            throw KASApplicationError("cannot rekey the Redis store \(url.redacted): \(error.reason)")
        }
        switch outcome {
        case .rekeyed(let counts): return counts
        case .already(let rekeyedIssuer): throw nothingToDo("the Redis store \(url.redacted)", rekeyedIssuer: rekeyedIssuer)
        }
    }
}
