import Foundation

/// What the KAS keeps about one offline licence (`OfflineLicenseStore`): enough to count the
/// viewer's devices, renew without the manifest (the policy's decision inputs and the keys already
/// wrapped to the device) and publish the signing key while the licence lives. No clear key, no
/// token, no subject (the viewer's store key, a hash).
package struct OfflineLicenseRecord: Sendable, Equatable {
    let id: String
    /// `Identity.storeKey`.
    let viewer: String
    /// The policy uuid.
    let asset: String
    /// The first-play record's key (`MediaService.firstPlayKey`): per purchase for a rental.
    let playKey: String
    /// `cnf.jkt`.
    let deviceThumbprint: String
    let deviceName: String?
    var signingKid: String
    var issued: Date
    var expires: Date
    var rentalEnds: Date?
    /// The policy decision's inputs, as JSON text: `arkavo:media`, `body.dataAttributes`, `body.dissem`.
    let rules: String
    let dataAttributes: String
    let dissem: String
    /// The licence's `keys` (wrapped to the device key), as JSON text.
    let keys: String
    var released: Date?
    var firstPlayed: Date?

    /// Counts against the device limit and can be renewed.
    func isLive(at now: Date) -> Bool { released == nil && expires > now }
}

/// The answer of `OfflineLicenseStore.issue`.
package enum OfflineIssueOutcome: Sendable, Equatable {
    /// Stored; `replaced` live licences of the same device and asset were released for it.
    case issued(replaced: Int)
    /// The viewer's live licences of the asset are on `maxOfflineDevices` other devices.
    case deviceLimit
}
