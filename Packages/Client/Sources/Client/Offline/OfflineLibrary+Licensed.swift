/// A licence the key service issued or renewed: verified with the pinned keys, then recorded
/// (docs/offline.md). Download and renewal both go through here, the one place the sealed
/// records are (re-)created, so an online renewal is what restores offline play after one was lost.
extension OfflineLibrary {
    /// A licence the key service just issued or renewed, verified with the keys the pinning rule
    /// gives for the fetched key set (`pin(_:)`, which updates the pin record): signature,
    /// device, asset.
    func verifyIssued(_ compact: String, fetched: FetchedSigningKeys, assetID: String) throws(OfflineError) -> OfflineLicenseCheck {
        try OfflineLicenseCheck(compact: compact, signingKeys: try pin(fetched), deviceKey: try deviceKey(), assetID: assetID)
    }

    /// Raises the clock's mark to the later of `now` and the licence's issue time, seals the
    /// title's first play (`firstPlayedAt`, nil: not played yet), then writes the title record
    /// in the current form. Returns the record as written.
    func recordLicensed(_ title: OfflineTitle, issuedAt: Int64, now: Int64,
                        firstPlayedAt: Int64?) throws(OfflineError) -> OfflineTitle {
        let clock = max(now, issuedAt)
        try raiseClock(to: clock)
        try LibraryFiles.ensurePrivateDirectory(titleDirectory(title.name))
        // A first play in the future (an earlier player's plain record, edited) is taken as now,
        // as the key service takes it: it can never hold a playback window open.
        try recordFirstPlay(title.name, at: firstPlayedAt.map { min($0, clock) })
        let current = title.current
        try save(current)
        return current
    }
}
