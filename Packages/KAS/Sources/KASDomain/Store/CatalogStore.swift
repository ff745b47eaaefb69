import Foundation
import MediaDRMMedia

/// The catalog (docs/delivery.md#catalog): the titles the delivery routes serve. `SQLiteCatalog`
/// keeps it in `media.sqlite` (one node), `RedisCatalogStore` in the shared Redis (several nodes,
/// docs/kas.md). Both refuse a second asset at a media path already served, in the same atomic
/// step as the write (SQLite's `UNIQUE`, Redis's one Lua script), and likewise a second asset
/// with a media id already taken.
public protocol CatalogStore: Sendable {
    /// Adds or replaces the entry of `entry.assetID`; another asset at the same media path or
    /// with the same media id is a `StoreError(.constraint)` whose reason says which.
    func put(_ entry: CatalogEntry, now: Date) throws(StoreError)
    /// The entry of an asset id (any letter case); nil when it is not catalogued.
    func entry(assetID: String) throws(StoreError) -> CatalogEntry?
    /// The entry a short media id names (exact case); nil when none has it.
    func entry(mediaID: MediaID) throws(StoreError) -> CatalogEntry?
    /// Every entry, by title then asset id.
    func entries() throws(StoreError) -> [CatalogEntry]
    /// False when the asset was not catalogued.
    func remove(assetID: String) throws(StoreError) -> Bool
    func close()
}

extension CatalogStore {
    /// Adds or replaces an entry, stamped with the current time.
    public func put(_ entry: CatalogEntry) throws(StoreError) { try put(entry, now: Date()) }

    /// The entry `id` names, an asset id (policy uuid) or a media id; nil when it is neither or
    /// not catalogued: wherever a route or a tool takes an asset id, it takes a media id too.
    public func entry(id: String) throws(StoreError) -> CatalogEntry? {
        if let mediaID = MediaID(id) { return try entry(mediaID: mediaID) }
        return CanonicalUUID.isCanonical(id) ? try entry(assetID: id) : nil
    }
}

/// What a store says when a put would give a second asset a media path or a media id.
package enum CatalogConflict {
    package static let mediaPath = "another asset is already served at this media path"
    package static let mediaID = "another asset already has this media id"
}
