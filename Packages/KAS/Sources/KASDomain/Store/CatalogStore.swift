import Foundation

/// The catalog (docs/delivery.md#catalog): the titles the delivery routes serve. `SQLiteCatalog`
/// keeps it in `media.sqlite` (one node), `RedisCatalogStore` in the shared Redis (several nodes,
/// docs/kas.md). Both refuse a second asset at a media path already served, in the same atomic
/// step as the write (SQLite's `UNIQUE`, Redis's one Lua script).
public protocol CatalogStore: Sendable {
    /// Adds or replaces the entry of `entry.assetID`; another asset at the same media path is a
    /// `StoreError(.constraint)`.
    func put(_ entry: CatalogEntry, now: Date) throws(StoreError)
    /// The entry of an asset id (any letter case); nil when it is not catalogued.
    func entry(assetID: String) throws(StoreError) -> CatalogEntry?
    /// Every entry, by title then asset id.
    func entries() throws(StoreError) -> [CatalogEntry]
    /// False when the asset was not catalogued.
    func remove(assetID: String) throws(StoreError) -> Bool
    func close()
}

extension CatalogStore {
    /// Adds or replaces an entry, stamped with the current time.
    public func put(_ entry: CatalogEntry) throws(StoreError) { try put(entry, now: Date()) }
}
