import Foundation
import MediaDRMEncoding
import MediaDRMMedia

/// The catalog (docs/delivery.md#catalog) in the KAS's SQLite file (`media.sqlite`), on its own
/// connection with its own schema version (`delivery_schema_version`), so its migrations
/// and the media store's never depend on each other.
///
/// Concurrency and durability are the media store's (`SQLiteMediaStore`): one connection under a
/// lock, WAL, every read-check-write in `BEGIN IMMEDIATE`.
package final class SQLiteCatalog: CatalogStore, @unchecked Sendable {
    /// `migrations[i]` moves version i to i+1.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE catalog_assets (
                asset TEXT PRIMARY KEY NOT NULL,
                title TEXT NOT NULL,
                duration_ms INTEGER NOT NULL,
                profile TEXT NOT NULL,
                components TEXT NOT NULL,
                media_path TEXT NOT NULL UNIQUE,
                policy TEXT NOT NULL,
                manifest TEXT,
                added_ms INTEGER NOT NULL
            )
            """,
        ],
        // The key ids of each component and a cmaf package's manifests (`CatalogEntry.keyIDsText`,
        // `manifestsText`).
        [
            "ALTER TABLE catalog_assets ADD COLUMN key_ids TEXT",
            "ALTER TABLE catalog_assets ADD COLUMN manifests TEXT",
        ],
        // A live stream's event (`CatalogLiveEvent.text`); NULL for VOD.
        ["ALTER TABLE catalog_assets ADD COLUMN live TEXT"],
        // The short media id (`MediaID`); NULL for an entry added before (SQLite's UNIQUE
        // lets NULLs repeat).
        [
            "ALTER TABLE catalog_assets ADD COLUMN media_id TEXT",
            "CREATE UNIQUE INDEX catalog_assets_media_id ON catalog_assets (media_id)",
        ],
        // The delivery API's fields (`CatalogEntry.description`, `publishedAt`, `subtitles`):
        // an entry added before was first catalogued no later than its last add.
        [
            "ALTER TABLE catalog_assets ADD COLUMN description TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE catalog_assets ADD COLUMN published_ms INTEGER",
            "UPDATE catalog_assets SET published_ms = added_ms",
            "ALTER TABLE catalog_assets ADD COLUMN subtitles TEXT",
        ],
        // Where the title's poster frames are (`CatalogEntry.posterPath`); NULL: none.
        ["ALTER TABLE catalog_assets ADD COLUMN poster_path TEXT"],
    ]

    private let lock = NSLock()
    private let database: SQLiteDatabase

    public init(path: String) throws(StoreError) {
        database = try SQLiteDatabase(path: path)
        try database.migrate(versionTable: "delivery_schema_version", migrations: Self.migrations)
    }

    public func close() {
        lock.withLock { database.close() }
    }

    private func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Assets

    /// Adds or replaces the entry of `entry.assetID`; another asset at the same media path is an error.
    public func put(_ entry: CatalogEntry, now: Date) throws(StoreError) {
        try locked { () throws(StoreError) -> Void in
            try database.transaction { () throws(StoreError) -> Void in
                // Named before the write so the refusal says which; the UNIQUE constraints stay the guard.
                for (column, value, conflict) in [("media_path", entry.mediaPath.prefix, CatalogConflict.mediaPath),
                                                  ("media_id", entry.mediaID?.text, CatalogConflict.mediaID)] {
                    guard let value else { continue }
                    if try !database.query("SELECT asset FROM catalog_assets WHERE \(column) = ? AND asset != ?",
                                           [.text(value), .text(entry.assetID)]).isEmpty {
                        throw StoreError(.constraint, conflict)
                    }
                }
                _ = try database.query("DELETE FROM catalog_assets WHERE asset = ?", [.text(entry.assetID)])
                _ = try database.query(
                    """
                    INSERT INTO catalog_assets (asset, title, duration_ms, profile, components, media_path, policy, manifest, added_ms,
                                                key_ids, manifests, live, media_id, description, published_ms, subtitles, poster_path)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(entry.assetID), .text(entry.title), .integer(Int64((entry.duration * 1000).rounded())),
                     .text(entry.profile.rawValue), .text(entry.components.joined(separator: ",")),
                     .text(entry.mediaPath.prefix), .text(Base64.encode(entry.policyJSON)),
                     entry.manifest.map { .text(Base64.encode($0)) } ?? .null, .integer(SQLiteMediaStore.ms(now)),
                     entry.keyIDsText.map { .text($0) } ?? .null, entry.manifestsText.map { .text($0) } ?? .null,
                     entry.live.map { .text($0.text) } ?? .null, entry.mediaID.map { .text($0.text) } ?? .null,
                     .text(entry.description), .integer(SQLiteMediaStore.ms(entry.publishedAt ?? now)),
                     CatalogSubtitle.text(entry.subtitles).map { .text($0) } ?? .null,
                     entry.posterPath.map { .text($0.prefix) } ?? .null])
            }
        }
    }

    public func entry(assetID: String) throws(StoreError) -> CatalogEntry? {
        try locked { () throws(StoreError) -> CatalogEntry? in
            try database.query("SELECT \(Self.columns) FROM catalog_assets WHERE asset = ?", [.text(assetID.lowercased())])
                .first.flatMap(Self.entry)
        }
    }

    public func entry(mediaID: MediaID) throws(StoreError) -> CatalogEntry? {
        try locked { () throws(StoreError) -> CatalogEntry? in
            try database.query("SELECT \(Self.columns) FROM catalog_assets WHERE media_id = ?", [.text(mediaID.text)])
                .first.flatMap(Self.entry)
        }
    }

    /// Every entry, by title then asset id.
    public func entries() throws(StoreError) -> [CatalogEntry] {
        try locked { () throws(StoreError) -> [CatalogEntry] in
            try database.query("SELECT \(Self.columns) FROM catalog_assets ORDER BY title, asset").compactMap(Self.entry)
        }
    }

    /// False when the asset was not catalogued.
    public func remove(assetID: String) throws(StoreError) -> Bool {
        try locked { () throws(StoreError) -> Bool in
            _ = try database.query("DELETE FROM catalog_assets WHERE asset = ?", [.text(assetID.lowercased())])
            return database.changes == 1
        }
    }

    private static let columns = "asset, title, duration_ms, profile, components, media_path, policy, manifest, key_ids, manifests, live, media_id, "
        + "description, published_ms, subtitles, poster_path"

    private static func entry(_ row: [SQLiteValue]) -> CatalogEntry? {
        guard row.count == 16, case .text(let asset) = row[0], case .text(let title) = row[1],
              case .integer(let durationMs) = row[2], case .text(let profileText) = row[3],
              let profile = CatalogProfile(rawValue: profileText), case .text(let components) = row[4],
              case .text(let pathText) = row[5], let path = try? TitlePath(pathText),
              case .text(let policyText) = row[6], let policy = try? Base64.decode(policyText)
        else { return nil }
        var manifest: Data?
        if case .text(let text) = row[7] { manifest = try? Base64.decode(text) }
        func text(_ value: SQLiteValue) -> String? { if case .text(let text) = value { text } else { nil } }
        // An unreadable event makes the row unreadable: a live title never turns into an unbounded one.
        var live: CatalogLiveEvent?
        if let liveText = text(row[10]) {
            guard let event = CatalogLiveEvent(text: liveText) else { return nil }
            live = event
        }
        var published: Date?
        if case .integer(let ms) = row[13] { published = SQLiteMediaStore.date(ms) }
        return CatalogEntry(assetID: asset, title: title, duration: Double(durationMs) / 1000, profile: profile,
                            components: components.split(separator: ",").map(String.init), mediaPath: path,
                            policyJSON: Data(policy), manifest: manifest.map { Data($0) },
                            keyIDs: CatalogEntry.keyIDs(text: text(row[8])), manifests: CatalogEntry.manifests(text: text(row[9])), live: live,
                            mediaID: text(row[11]).flatMap(MediaID.init), description: text(row[12]) ?? "",
                            publishedAt: published, subtitles: CatalogSubtitle.list(text: text(row[14])),
                            posterPath: text(row[15]).flatMap { try? TitlePath($0) })
    }
}
