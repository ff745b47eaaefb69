// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMFPSv2
import Foundation

/// Every admission check of a source, each with its outcome, without any key-service request
/// (`player admit`). fps-v2: the reader checks of §4–§9 (`FPSv2Admission.check`), with
/// `keyServiceURL` as the only accepted key service. tdf-hls: the master and media playlists
/// against the profile's grammar and the init segments. Blocking: call it off the main actor.
public struct PlaybackAdmissionReport: Sendable, Equatable {
    public struct Check: Sendable, Equatable {
        /// The admission vocabulary shared with `packager inspect` (`label`, `jsonValue`).
        public typealias Status = AdmissionCheckResult.Status
        /// The spec row (fps-v2: the `AdmissionCheck` raw value).
        public let name: String
        public let status: Status
        /// A fixed sentence; never a secret.
        public let detail: String
    }

    /// "fps-v2" or "tdf-hls".
    public let profile: String
    public let checks: [Check]
    /// The key service an fps-v2 package names (§5.2 normalized), when admission read it.
    public var keyServiceURL: String?

    /// No check failed and none was left unrun.
    public var isAdmitted: Bool {
        checks.allSatisfy { $0.status == .passed || $0.status == .notApplicable || $0.status == .verifiedOnRead }
    }

    public static func check(_ source: PlaybackSource, keyServiceURL: String?, client: HTTPClient) -> PlaybackAdmissionReport {
        let options = keyServiceURL.map { FPSv2Admission.Options(acceptedKeyServiceURLs: [$0]) } ?? .default
        switch source {
        case .packageFile(let path):
            do throws(FPSv2Error) {
                return fpsV2(FPSv2Admission.check(try FPSv2Package(archivePath: path), options: options))
            } catch {
                return opening("fps-v2", "the package could not be opened: \(error.reason)")
            }
        case .directory(let path):
            if !FileManager.default.fileExists(atPath: path + "/" + FPSv2EntryName.manifestName),
               FileManager.default.fileExists(atPath: path + "/" + FPSv2EntryName.masterName) {
                return tdfHLS { () throws(PlaybackError) in
                    try TDFHLSStream.open(loader: DirectoryResourceLoader(directory: path), masterName: FPSv2EntryName.masterName)
                }
            }
            return fpsV2(FPSv2Admission.check(FPSv2Package(directoryPath: path), options: options))
        case .packageURL(let url):
            let range: HTTPRangeSource
            do {
                range = try HTTPRangeSource(url: url, client: client)
            } catch {
                return opening("fps-v2", "the package URL could not be opened: \(error.reason)")
            }
            return fpsV2(FPSv2Admission.check(FPSv2Package(archive: range), options: options))
        case .tdfHLSMasterFile(let path):
            let (directory, name) = PlaybackSource.splitMaster(path)
            return tdfHLS { () throws(PlaybackError) in
                try TDFHLSStream.open(loader: DirectoryResourceLoader(directory: directory), masterName: name)
            }
        case .tdfHLSMasterURL(let url):
            var name = Substring(url)
            if let cut = name.firstIndex(where: { $0 == "?" || $0 == "#" }) { name = name[..<cut] }
            let master = String(name.split(separator: "/").last ?? "")
            return tdfHLS { () throws(PlaybackError) in
                try TDFHLSStream.open(loader: HTTPResourceLoader(siblingsOf: url, client: client), masterName: master)
            }
        }
    }

    private static func fpsV2(_ report: AdmissionReport) -> PlaybackAdmissionReport {
        PlaybackAdmissionReport(profile: "fps-v2", checks: report.results.map { result in
            Check(name: result.check.rawValue, status: result.status, detail: result.detail)
        }, keyServiceURL: report.keyServiceURL)
    }

    private static func opening(_ profile: String, _ detail: String) -> PlaybackAdmissionReport {
        PlaybackAdmissionReport(profile: profile, checks: [Check(name: "the source opens", status: .failed, detail: detail)])
    }

    private static func tdfHLS(_ open: () throws(PlaybackError) -> TDFHLSStream) -> PlaybackAdmissionReport {
        let name = "tdf-hls: master with the profile marker, media playlists in the grammar, init segments rewritable"
        do throws(PlaybackError) {
            let stream = try open()
            let detail = "components \(stream.components.map(\.id).joined(separator: ", ")), "
                + "\(stream.components.first?.segments.count ?? 0) segments"
            return PlaybackAdmissionReport(profile: "tdf-hls", checks: [Check(name: name, status: .passed, detail: detail)])
        } catch {
            return PlaybackAdmissionReport(profile: "tdf-hls", checks: [Check(name: name, status: .failed, detail: error.reason)])
        }
    }
}
