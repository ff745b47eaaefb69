import Foundation

/// The offline licences (docs/offline.md): `SQLiteOfflineStore` in `offline.sqlite` (one node),
/// `RedisOfflineLicenseStore` in the shared Redis (several nodes). Whatever the backend, `issue`
/// counts the viewer's devices and stores the licence in one atomic step, so parallel requests
/// to any number of nodes admit exactly `maxOfflineDevices` devices.
package protocol OfflineLicenseStore: Sendable {
    /// Stores `record` unless the viewer's live licences of the asset are on `maxDevices` other
    /// devices; a live licence of the same device and asset is released (replaced) by it.
    func issue(_ record: OfflineLicenseRecord, maxDevices: Int, now: Date) throws(StoreError) -> OfflineIssueOutcome
    /// The licence, live or not; nil when unknown.
    func license(id: String) throws(StoreError) -> OfflineLicenseRecord?
    /// Writes a renewal (new signing key, issue and expiry times) of a licence still live at
    /// `now`; false when it is not.
    func renew(_ record: OfflineLicenseRecord, now: Date) throws(StoreError) -> Bool
    /// Releases a licence of `viewer` not yet released; false when there is none.
    func release(id: String, viewer: String, now: Date) throws(StoreError) -> Bool
    /// Keeps the earliest reported first offline play of a licence.
    func recordFirstPlay(id: String, at time: Date) throws(StoreError)
    /// The kids that signed a licence not released and not expired at `now`: the retired
    /// signing keys that must stay published.
    func liveSigningKids(now: Date) throws(StoreError) -> Set<String>
    /// Every licence, live or not (`kas store migrate` copies them).
    func allLicenses() throws(StoreError) -> [OfflineLicenseRecord]
    /// Writes a licence exactly as given, replacing one of the same id (a migration's copy;
    /// running it twice changes nothing).
    func importLicense(_ record: OfflineLicenseRecord) throws(StoreError)
    func close()
}
