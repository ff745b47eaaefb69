import Foundation
@testable import KASDomain
import Testing

/// `SQLiteCatalog`'s migrations from version 4 (media ids): an entry catalogued before the
/// delivery API's fields reads with an empty description, no subtitles or posters, and its last
/// add as its first catalogued date.
struct CatalogMigrationTests {
    @Test func anEntryOfVersionFourReadsWithItsAddAsItsFirstDate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-migration-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/media.sqlite"
        let asset = "aaaaaaaa-0000-4000-8000-000000000001"
        let added: Int64 = 1_800_000_000_000
        let old = try SQLiteDatabase(path: path)
        try old.migrate(versionTable: "delivery_schema_version", migrations: Array(SQLiteCatalog.migrations.prefix(4)))
        _ = try old.query("""
            INSERT INTO catalog_assets (asset, title, duration_ms, profile, components, media_path, policy, manifest, added_ms, media_id)
            VALUES (?, 'Old', 4000, 'tdf-hls', 'video,audio', '/old/', 'e30=', NULL, ?, 'Ab12cd34')
            """, [.text(asset), .integer(added)])
        old.close()

        let catalog = try SQLiteCatalog(path: path)
        defer { catalog.close() }
        let entry = try #require(try catalog.entry(assetID: asset))
        #expect(entry.title == "Old" && entry.mediaID?.text == "Ab12cd34")
        #expect(entry.description == "" && entry.subtitles.isEmpty && entry.posterPath == nil)
        #expect(entry.publishedAt == Date(timeIntervalSince1970: 1_800_000_000))
    }
}
