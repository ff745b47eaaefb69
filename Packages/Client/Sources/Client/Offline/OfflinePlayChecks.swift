import MediaDRMCrypto

/// The checks of an offline play that come before the stored package (docs/offline.md), in this
/// order: the title holds a licence; it is not bound to another device (a title copied from
/// another library); its first-play record (sealed; a title an earlier player stored asks for
/// one renewal); the clock against the sealed high-water mark; the licence against the
/// licence-signing keys pinned for its key service (never keys from the title record), the
/// device and the asset (`OfflineLicenseCheck`); then `exp` and the playback window. Every
/// refusal is an `OfflineError` with its code.
struct OfflinePlayChecks {
    let title: OfflineTitle
    let license: OfflineLicenseCheck
    let deviceKey: ECP256.KeyAgreement.PrivateKey
    /// The time licences are judged by: the later of the clock and the high-water mark.
    let now: Int64
    let firstPlayedAt: Int64?

    init(library: OfflineLibrary, name: String, now clock: Int64) throws(OfflineError) {
        let title = try library.requireTitle(name)
        guard title.state == .licensed else {
            throw OfflineError(.licenseReleased, "the title's licence was given back: download the title again to watch it")
        }
        let deviceKey = try library.deviceKey()
        try OfflineLicenseCheck.refuseAnotherDevice(title.license, deviceKey: deviceKey)
        let firstPlayedAt = try library.firstPlay(of: title)
        let now = try library.observeClock(now: clock, playing: name)
        let license = try OfflineLicenseCheck(compact: title.license, signingKeys: try library.pinnedSigningKeys(for: title),
                                              deviceKey: deviceKey, assetID: title.assetID)
        try license.checkTimes(now: now, firstPlayedAt: firstPlayedAt)
        self.title = title
        self.license = license
        self.deviceKey = deviceKey
        self.now = now
        self.firstPlayedAt = firstPlayedAt
    }

    /// The first offline play's time: the recorded one, or this play's, sealed now when it is the
    /// first (before the first clear byte, so the window runs from it even if this play stops
    /// early).
    func recordFirstPlay(in library: OfflineLibrary) throws(OfflineError) -> Int64 {
        if let firstPlayedAt { return firstPlayedAt }
        try library.recordFirstPlay(title.name, at: now)
        return now
    }

    /// Seconds the keys may still be used from `now`: until `exp` or the playback window's end,
    /// the window counted from `firstPlayedAt` (this play's time when it is the first).
    func usableSeconds(firstPlayedAt first: Int64) -> Int64 {
        var usable = license.license.expiresAt - now
        if let window = license.license.playbackWindowSeconds { usable = min(usable, first + window - now) }
        return max(0, usable)
    }
}
