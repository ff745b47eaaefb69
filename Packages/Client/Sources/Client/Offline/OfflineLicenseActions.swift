import Foundation
import MediaDRMOffline

/// The online actions on a downloaded title's licence (docs/offline.md): renew (a new licence
/// with a later `exp`, never past a rental, verified like the first and the signing keys
/// refreshed) and release (the licence given back: the device slot frees and the wrapped keys
/// are dropped from the library). Each reports the first offline play, if any, to the key
/// service recorded with the title.
public struct OfflineLicenseActions: Sendable {
    public let library: OfflineLibrary
    private let credential: Credential
    private let client: HTTPClient

    public init(library: OfflineLibrary, credential: Credential, client: HTTPClient) {
        self.library = library
        self.credential = credential
        self.client = client
    }

    private func service(_ title: OfflineTitle) -> OfflineLicenseClient {
        OfflineLicenseClient(media: KASMediaService(baseURL: title.keyService, client: client, credential: credential))
    }

    private static func report(_ firstPlayedAt: Int64?) -> OfflinePlayReport {
        OfflinePlayReport(firstPlayedAt: firstPlayedAt.map(OfflineTimestamp.date(numericDate:)))
    }

    /// Renews the title's licence; returns the updated record. The fetched licence-signing keys
    /// go through the pinning rule (`pin(_:)`) and the new licence must verify with the result;
    /// then every sealed record the title needs is re-created (`recordLicensed`), which is what
    /// restores offline play after one was lost, and upgrades a title an earlier player stored.
    public func renew(_ name: String, now: Int64) async throws(OfflineError) -> OfflineTitle {
        let title = try library.requireTitle(name)
        guard title.state == .licensed else {
            throw OfflineError(.licenseReleased, "the title's licence was given back: download the title again to watch it")
        }
        let clock = try library.observeClockOnline(now: now)
        let service = service(title)
        let firstPlayedAt = library.knownFirstPlay(of: title)
        let fetched = try await service.signingKeys()
        let answer = try await service.renew(licenseID: title.licenseID, report: Self.report(firstPlayedAt))
        let check = try library.verifyIssued(answer.license, fetched: fetched, assetID: title.assetID)
        guard check.license.licenseID == answer.licenseID, check.license.subject == title.viewer else {
            throw OfflineError(.keyService, "the renewed licence is for another licence id or viewer than the title's")
        }
        var renewed = title
        renewed.license = answer.license
        renewed.licenseID = answer.licenseID
        renewed.expiresAt = check.license.expiresAt
        return try library.recordLicensed(renewed, issuedAt: check.license.issuedAt, now: clock, firstPlayedAt: firstPlayedAt)
    }

    /// Gives the licence back; returns the updated record (state `released`, no licence kept).
    public func release(_ name: String) async throws(OfflineError) -> OfflineTitle {
        var title = try library.requireTitle(name)
        guard title.state == .licensed else {
            throw OfflineError(.licenseReleased, "the title's licence was already given back")
        }
        try await service(title).release(licenseID: title.licenseID,
                                           report: Self.report(library.knownFirstPlay(of: title)))
        title.state = .released
        title.license = ""
        try library.save(title.current)
        return title.current
    }
}
