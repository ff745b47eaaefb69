import Foundation
import KASRedis

/// How a store keys its per-viewer records (docs/kas.md "Viewers keyed by issuer and subject"),
/// recorded in the store itself so `kas serve` never mixes two keyings of one viewer:
///
/// - SQLite: a table `viewer_keys` (one row: `scheme`, and after `kas store rekey`
///   `rekeyed_issuer` and `rekeyed_ms`) made by a schema step of the media store and of the
///   offline store (`sqliteStep`). The step looks at the file's records: a file that has none
///   is marked `issuerAndSubject` at once, one written by an earlier version `subjectOnly`.
/// - Redis: the hash `viewer-keys` (the same fields), set by `prepare` when a store without it
///   holds no per-viewer record, else left absent, which is `subjectOnly`.
package enum ViewerKeyScheme: String, Sendable, Equatable {
    /// `Identity.storeKey`: what this code writes and reads.
    case issuerAndSubject = "issuer+subject"
    /// `Identity.subjectKey`, the keying of earlier versions: refused until rekeyed (`StoreRekey`).
    case subjectOnly = "subject"

    // MARK: SQLite

    /// The schema step that records the scheme in a SQLite store whose per-viewer records are in
    /// `tables`: one statement decides from the rows present, inside the migration's transaction.
    static func sqliteStep(recordTables tables: [String]) -> [String] {
        let present = tables.map { "EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " OR ")
        return [
            "CREATE TABLE viewer_keys (scheme TEXT NOT NULL, rekeyed_issuer TEXT, rekeyed_ms INTEGER)",
            """
            INSERT INTO viewer_keys (scheme) SELECT CASE WHEN \(present)
            THEN '\(subjectOnly.rawValue)' ELSE '\(issuerAndSubject.rawValue)' END
            """,
        ]
    }

    /// The media store's step: its sessions, first plays and rate buckets.
    static let mediaStoreStep = sqliteStep(recordTables: ["media_sessions", "media_first_plays", "media_rate_buckets"])
    /// The offline store's step: its licences.
    static let offlineStoreStep = sqliteStep(recordTables: ["offline_licenses"])

    /// The scheme a migrated SQLite store records, and the issuer it was rekeyed to, if it was.
    static func stored(in database: SQLiteDatabase) throws(StoreError) -> (scheme: ViewerKeyScheme, rekeyedIssuer: String?) {
        let rows = try database.query("SELECT scheme, rekeyed_issuer FROM viewer_keys")
        guard rows.count == 1, case .text(let text) = rows[0][0], let scheme = ViewerKeyScheme(rawValue: text) else {
            throw StoreError(.open, "the viewer key scheme (viewer_keys) is unreadable")
        }
        if case .text(let issuer) = rows[0][1] { return (scheme, issuer) }
        return (scheme, nil)
    }

    // MARK: Redis

    /// The marker hash, after the key prefix.
    static let redisMarker = "viewer-keys"

    /// The kinds of key (after the prefix) whose presence shows per-viewer records.
    static let redisRecordKinds = ["session:", "first-play:", "rate:", "offline:license:"]

    /// ARGV: prefix, then `redisRecordKinds`. The recorded scheme; without one, `subject` when a
    /// record of any kind exists, else the marker is set and `issuer+subject` answered. One
    /// script, so the look and the mark are one step.
    private static let prepareScript = RedisScript(#"""
    local prefix = ARGV[1]
    local marker = prefix .. 'viewer-keys'
    local scheme = redis.call('HGET', marker, 'scheme')
    if scheme then return scheme end
    local escaped = string.gsub(prefix, '[%*%?%[%]\\]', '\\%0')
    for index = 2, #ARGV do
      local cursor = '0'
      repeat
        local page = redis.call('SCAN', cursor, 'MATCH', escaped .. ARGV[index] .. '*', 'COUNT', 1000)
        if #page[2] > 0 then return 'subject' end
        cursor = page[1]
      until cursor == '0'
    end
    redis.call('HSET', marker, 'scheme', 'issuer+subject')
    return 'issuer+subject'
    """#)

    /// The scheme of the Redis store under `prefix`, marking a store with no per-viewer record.
    static func prepare(_ client: RedisClient, prefix: String) throws(StoreError) -> ViewerKeyScheme {
        let reply = try RedisStoreCalls.evaluate(client, prepareScript, keys: [], arguments: [prefix] + redisRecordKinds)
        guard let scheme = reply.string.flatMap(ViewerKeyScheme.init(rawValue:)) else {
            throw StoreError(.unavailable, "the Redis state store sent an unexpected viewer key scheme")
        }
        return scheme
    }

    // MARK: The start-up refusal

    /// Why the stores in `stores` (named for the operator) cannot be served, and the one command
    /// that fixes it. The issuer is named when the configuration trusts exactly one; otherwise
    /// the command carries a placeholder and the trusted issuers are listed.
    static func refusal(_ stores: [String], configuration: KASConfiguration) -> KASApplicationError {
        var trusted = configuration.issuers.map(\.issuer)
        if configuration.devIssuer { trusted.append(DevIssuer.issuer) }
        let issuer = trusted.count == 1 ? shellWord(trusted[0]) : "<issuer>"
        var command = "kas store rekey --issuer \(issuer)"
        if let url = configuration.store.url {
            var shown = url
            shown.password = nil
            command += " --store \(shown.redacted)"
            if url.password != nil { command += " (with KAS_STORE_PASSWORD set)" }
        } else {
            command += " --data-dir \(shellWord(configuration.dataDirectory))"
        }
        var reason = "\(stores.joined(separator: " and ")) \(stores.count == 1 ? "holds" : "hold") records keyed by "
            + "subject alone, written before viewers were keyed by issuer and subject: stop every KAS node on it and run once: "
            + command
        if trusted.count != 1 {
            reason += " with the issuer whose viewers made those records"
                + (trusted.isEmpty ? "" : " (trusted now: \(trusted.joined(separator: ", ")))")
        }
        return KASApplicationError(reason)
    }

    /// `text` as one shell word: as is when it holds only characters no shell interprets.
    private static func shellWord(_ text: String) -> String {
        let plain = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,-")
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
