import Foundation
import MediaDRMFPSv2
import MediaDRMOffline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads an fps-v2 package into the library and licenses it for offline play
/// (docs/offline.md), in this order: the package is admitted remotely (Range reads of its
/// central directory, manifest and playlists; nothing is kept before it passes); it is
/// downloaded with a resumable `PackageDownload`; the complete file is admitted again and every
/// entry read (CRC-checked), and its manifest must be the one admitted remotely; only then are
/// the licence-signing keys fetched (and pinned for the key service, `pin(_:)`) and a licence
/// requested for this library's device key. The licence is verified (signature with the pinned
/// keys, device, asset, each key opens) before the title is recorded.
/// A failed licence request keeps the complete download, so running the command again only
/// asks for the licence.
public struct OfflineDownload: Sendable {
    public enum Event: Sendable {
        /// Remote admission passed.
        case admitted(checks: Int, components: [String], segments: Int)
        case transfer(PackageDownload.Event)
        /// The complete package passed admission and every entry's CRC.
        case verified(bytes: UInt64)
        /// The licence was issued and verified; `expiresAt` in seconds since the epoch.
        case licensed(expiresAt: Int64)
    }

    public let library: OfflineLibrary
    public let name: String
    public let sourceURL: String
    public let keyServiceURL: String
    public let deviceName: String?
    private let credential: Credential
    private let client: HTTPClient
    private let events: (@Sendable (Event) -> Void)?

    public init(library: OfflineLibrary, name: String, sourceURL: String, keyServiceURL: String, credential: Credential,
                client: HTTPClient, deviceName: String? = nil, events: (@Sendable (Event) -> Void)? = nil) {
        self.library = library
        self.name = name
        self.sourceURL = sourceURL
        self.keyServiceURL = keyServiceURL
        self.credential = credential
        self.client = client
        self.deviceName = deviceName
        self.events = events
    }

    /// The name a source gets without `--name`: the last path segment of its URL without its extension.
    public static func defaultName(for url: String) -> String {
        var path = Substring(url)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// Checks that `url` is something this client can download for offline play.
    public static func validateSource(_ url: String) throws(OfflineError) {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw OfflineError(.unsupportedSource, "the source must be the http(s) URL of an fps-v2 package "
                               + "(a local package plays directly with player play)")
        }
        if case .tdfHLSMasterURL? = try? PlaybackSource(argument: url) {
            throw OfflineError(.unsupportedSource, "tdf-hls streams cannot be downloaded for offline play yet (each segment has "
                               + "its own key): download the title's fps-v2 package instead")
        }
    }

    public func run(now: Int64) async throws(OfflineError) -> OfflineTitle {
        try Self.validateSource(sourceURL)
        try OfflineLibrary.validate(name: name)
        if try library.title(named: name) != nil {
            throw OfflineError(.titleExists, "the library already has a title named '\(name)': choose another --name or player delete it")
        }
        let clock = try library.observeClockOnline(now: now)

        // 1. Remote admission: nothing is kept before the package passes.
        let url = sourceURL, kas = keyServiceURL, client = self.client
        let remote = try await Blocking.run(orFail: .download) { () throws(OfflineError) -> FPSv2AdmittedPackage in
            let range: HTTPRangeSource
            do throws(TransportError) {
                range = try HTTPRangeSource(url: url, client: client)
            } catch {
                throw OfflineError(.download, "the package URL could not be opened: \(error.reason)")
            }
            return try Self.admitted(FPSv2Package(archive: range), keyServiceURL: kas, localHeaders: .onRead)
        }
        events?(.admitted(checks: remote.report.results.count, components: remote.components.map { $0.id },
                          segments: remote.segmentCount))

        // 2. The bytes, resumable.
        try LibraryFiles.ensurePrivateDirectory(library.titleDirectory(name))
        let events = self.events
        let transfer = PackageDownload(url: url, directory: library.downloadDirectory(name), client: client,
                                       events: { events?(.transfer($0)) })
        let (partial, bytes) = try await Blocking.run(orFail: .download) { () throws(OfflineError) in try transfer.run() }

        // 3. The complete file: admitted again, every entry read, the same manifest.
        let digest = try await Blocking.run(orFail: .download) { () throws(OfflineError) -> String in
            let local: FPSv2Package
            do {
                local = try FPSv2Package(archivePath: partial)
            } catch {
                throw OfflineError(.download, "the downloaded package could not be opened: run the command again")
            }
            let package = try Self.admitted(local, keyServiceURL: kas, localHeaders: .eager)
            guard package.manifestBytes == remote.manifestBytes else {
                transfer.discard()
                throw OfflineError(.download, "the package changed on the origin during the download: run the command again")
            }
            do throws(FPSv2Error) {
                for component in package.components {
                    _ = try package.read(.initSegment(component: component.id))
                    for number in 0..<package.segmentCount { _ = try package.read(.segment(component: component.id, number: number)) }
                }
            } catch {
                transfer.discard()
                throw OfflineError(.download, "the downloaded package is damaged (\(error.reason)): run the command again")
            }
            return try LibraryFiles.sha256Hex(ofFile: partial)
        }
        events?(.verified(bytes: bytes))

        // 4. The licence, for this library's device key.
        let deviceKey = try library.deviceKey()
        let device: OfflineDeviceKey
        do {
            device = try OfflineDeviceKey(deviceKey.publicKey)
        } catch {
            throw OfflineError(.library, "the library's device key is not usable for a licence")
        }
        let service = OfflineLicenseClient(media: KASMediaService(baseURL: keyServiceURL, client: client, credential: credential))
        let fetched = try await service.signingKeys()
        let answer = try await service.issue(OfflineLicenseRequest(
            assetID: remote.policyUUID, manifest: remote.manifestBytes, device: device,
            deviceName: deviceName))
        let check = try library.verifyIssued(answer.license, fetched: fetched, assetID: remote.policyUUID)
        _ = try check.contentKeys(deviceKey: deviceKey, components: remote.components.map { ($0.kind, $0.keyBinding) })
        guard check.license.licenseID == answer.licenseID else {
            throw OfflineError(.keyService, "the key service's answer names another licence than the one it signed")
        }

        // 5. Recorded: the package moves into place, then the sealed records, the title record last.
        let title = OfflineTitle(
            name: name, source: Self.withoutQuery(sourceURL), keyService: KASMediaService(baseURL: keyServiceURL, client: client,
                                                                                          credential: credential).baseURL,
            assetID: remote.policyUUID, viewer: check.license.subject, packageBytes: bytes, packageSHA256: digest,
            state: .licensed, license: answer.license, licenseID: answer.licenseID, expiresAt: check.license.expiresAt)
        let packagePath = library.packagePath(name)
        guard rename(partial, packagePath) == 0 else {
            throw OfflineError(.library, "the package could not be moved into the library: check its free space and permissions")
        }
        let recorded: OfflineTitle
        do throws(OfflineError) {
            recorded = try library.recordLicensed(title, issuedAt: check.license.issuedAt, now: clock, firstPlayedAt: nil)
        } catch {
            LibraryFiles.remove(packagePath)
            LibraryFiles.remove(library.sealedPath(.firstPlay(name)))
            throw error
        }
        transfer.discard()
        events?(.licensed(expiresAt: check.license.expiresAt))
        return recorded
    }

    static func withoutQuery(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        return String(text)
    }

    private static func admitted(_ package: FPSv2Package, keyServiceURL: String,
                                 localHeaders: FPSv2Admission.Options.LocalHeaders) throws(OfflineError) -> FPSv2AdmittedPackage {
        do {
            guard case .fpsV2(let admitted, _) = try PlaybackSession.admit(package, keyServiceURL: keyServiceURL, nil,
                                                                           localHeaders: localHeaders) else {
                throw OfflineError(.unsupportedSource, "the source is not an fps-v2 package")
            }
            return admitted
        } catch let error as OfflineError {
            throw error
        } catch let error as PlaybackError {
            if error.code == .refused { throw OfflineError(.unsupportedSource, "the package is refused: \(error.reason)") }
            throw OfflineError(.download, error.reason)
        } catch {
            throw OfflineError(.download, "the package could not be read")
        }
    }
}
