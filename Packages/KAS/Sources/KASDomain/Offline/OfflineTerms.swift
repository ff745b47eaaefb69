import Foundation
import MediaDRMMedia
import MediaDRMOffline

/// When an offline licence ends and how long it plays (docs/offline.md):
///
/// - `exp` is `offlineLicenseDuration` after issue (or renewal), and never past the rental's end;
/// - the rental's end is its first play plus `playbackWindowSeconds` once it was played (online
///   or a reported offline play), else the latest it can be: the purchase plus
///   `purchaseWindowSeconds` plus `playbackWindowSeconds` (a first play at the last moment);
/// - `playbackWindow` is the smaller of `offlinePlaybackWindow` and the rental's playback window,
///   counted by the player from its first offline play.
struct OfflineTerms: Sendable, Equatable {
    let expires: Date
    let playbackWindow: Int64?
    let rentalEnds: Date?

    /// nil when the rental has ended (its end is not after `now`).
    init?(rules: MediaRules, purchase: Int64?, firstPlay: Date?, now: Date) {
        var rentalEnds: Date?
        if rules.isRental, let window = rules.rentalPlaybackWindowSeconds {
            if let firstPlay {
                rentalEnds = firstPlay.addingTimeInterval(TimeInterval(window))
            } else if let purchase, let purchaseWindow = rules.rentalPurchaseWindowSeconds {
                rentalEnds = Date(timeIntervalSince1970: TimeInterval(purchase + purchaseWindow + window))
            }
        }
        // Whole seconds, as the licence writes them, so the stored and signed `exp` agree.
        let wanted = Date(timeIntervalSince1970: TimeInterval(OfflineTimestamp.numericDate(now) + rules.effectiveOfflineLicenseDuration))
        let end = rentalEnds.map { Date(timeIntervalSince1970: TimeInterval(OfflineTimestamp.numericDate($0))) }
        let expires = end.map { min(wanted, $0) } ?? wanted
        guard expires > now else { return nil }
        self.expires = expires
        self.rentalEnds = end
        let windows = [rules.offlinePlaybackWindowSeconds, rules.isRental ? rules.rentalPlaybackWindowSeconds : nil].compactMap { $0 }
        self.playbackWindow = windows.min()
    }
}
