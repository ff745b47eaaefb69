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

    private static func report(_ title: OfflineTitle) -> OfflinePlayReport {
        OfflinePlayReport(firstPlayedAt: title.firstPlayedAt.map(OfflineTimestamp.date(numericDate:)))
    }

    /// Renews the title's licence; returns the updated record.
    public func renew(_ name: String, now: Int64) async throws(OfflineError) -> OfflineTitle {
        var title = try library.requireTitle(name)
        guard title.state == .licensed else {
            throw OfflineError(.licenseReleased, "the title's licence was given back: download the title again to watch it")
        }
        _ = try library.observeClock(now: now)
        let service = service(title)
        let signingKeys = try await service.signingKeys()
        let answer = try await service.renew(licenseID: title.licenseID, report: Self.report(title))
        let deviceKey = try library.deviceKey()
        let check = try OfflineLicenseCheck(compact: answer.license, signingKeys: signingKeys, deviceKey: deviceKey,
                                            assetID: title.assetID)
        guard check.license.licenseID == answer.licenseID, check.license.subject == title.viewer else {
            throw OfflineError(.keyService, "the renewed licence is for another licence id or viewer than the title's")
        }
        title.license = answer.license
        title.licenseID = answer.licenseID
        title.expiresAt = check.license.expiresAt
        title.signingKeys = signingKeys
        try library.save(title)
        return title
    }

    /// Gives the licence back; returns the updated record (state `released`, no licence kept).
    public func release(_ name: String) async throws(OfflineError) -> OfflineTitle {
        var title = try library.requireTitle(name)
        guard title.state == .licensed else {
            throw OfflineError(.licenseReleased, "the title's licence was already given back")
        }
        try await service(title).release(licenseID: title.licenseID, report: Self.report(title))
        title.state = .released
        title.license = ""
        try library.save(title)
        return title
    }
}
