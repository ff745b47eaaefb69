import Foundation
import MediaDRMHLS
import MediaDRMJSON
import MediaDRMMP4
import MediaDRMTDF
import MediaDRMZIP
import MediaDRMMedia

/// Reader admission of an fps-v2 package (draft-arkavo-tdf-fairplay-01 §4–§9): every structural
/// check a reader can make without a key and without the network, in the order of
/// `AdmissionCheck.allCases`. A reader runs it before any certificate, session or license
/// request (§1.4); a package is `fmp4-cbcs-fps` version 2 only if every check holds (§9.1).
public enum FPSv2Admission {
    public struct Options: Sendable, Equatable {
        public var limits: FPSv2Limits
        /// The key services a `keyAccess.url` may name, compared after §5.2 normalization. The
        /// profile names only `https://platform.arkavo.net`; a deployment with its own KAS lists it.
        public var acceptedKeyServiceURLs: [String]
        /// §6.4: an unreadable (or missing) `arkavo:classification` makes a package unsupported.
        /// Turning this off makes the check not applicable; the classification is still read.
        public var requireReadableClassification: Bool
        /// When the §4.2/§4.3 local-header checks of the media segments run. See `LocalHeaders`.
        public var localHeaders: LocalHeaders

        /// `eager` (the default): admission reads and verifies every entry's local header (one
        /// small read per entry, one request each over HTTP). `onRead`: admission checks the
        /// exact layout from the central directory alone (every local header taken as 30 bytes
        /// plus its name, entries back to back), reads and verifies the local headers of the
        /// metadata entries (manifest, playlists, inits), and leaves each segment's local header
        /// to be verified when the segment is read, before any of its bytes are used; a header
        /// that disagrees then fails that read with the §4.2 (or §4.3) check identifier. The
        /// report shows both checks as `verifiedOnRead`.
        public enum LocalHeaders: String, Sendable, Equatable {
            case eager
            case onRead
        }

        public init(limits: FPSv2Limits = .default, acceptedKeyServiceURLs: [String] = [KeyServiceURL.platform],
                    requireReadableClassification: Bool = true, localHeaders: LocalHeaders = .eager) {
            self.limits = limits
            self.acceptedKeyServiceURLs = acceptedKeyServiceURLs
            self.requireReadableClassification = requireReadableClassification
            self.localHeaders = localHeaders
        }

        public static let `default` = Options()
    }

    /// Runs every check and reports each one; a check whose inputs an earlier failure left
    /// missing is `notRun`. Never throws and never traps on hostile input.
    public static func check(_ package: FPSv2Package, options: Options = .default) -> AdmissionReport {
        let run = AdmissionRun(package: package, options: options, stopAtFirstFailure: false)
        run.runAll()
        return run.report
    }

    /// Admits the package or throws a `.refused` error naming the first check that failed. No
    /// check after the first failure is run.
    public static func admit(_ package: FPSv2Package, options: Options = .default) throws(AdmissionError) -> FPSv2AdmittedPackage {
        let run = AdmissionRun(package: package, options: options, stopAtFirstFailure: true)
        run.runAll()
        let report = run.report
        if let failure = report.firstFailure {
            throw AdmissionError(.refused, failure.detail, check: failure.check)
        }
        guard report.isAdmitted, let admitted = run.admittedPackage(report: report) else {
            throw AdmissionError(.refused, "admission did not complete", check: report.results.first { $0.status == .notRun }?.check)
        }
        return admitted
    }
}

/// One admission pass: the steps in order, each recording its outcome, with the state the later
/// steps read. Not shared across threads.
final class AdmissionRun {
    enum Outcome {
        case passed(String)
        case notApplicable(String)
        /// An earlier failure this check cannot be judged without.
        case notRun(String)
        /// Checked as far as the central directory allows; the rest is verified when an entry
        /// is read (`Options.LocalHeaders.onRead`).
        case verifiedOnRead(String)
    }

    let package: FPSv2Package
    let options: FPSv2Admission.Options
    let stopAtFirstFailure: Bool
    private var results: [AdmissionCheckResult] = []
    private(set) var statuses: [AdmissionCheck: AdmissionCheckResult.Status] = [:]
    private var stopped = false

    // State the steps build up.
    var store: EntryStore?
    var entries: [EntryInfo] = []
    var zipOpenFailure: (check: AdmissionCheck, reason: String)?
    var zipReader: ZIPReader?
    var names: [FPSv2EntryName] = []
    var manifestBytes: Data?
    var masterBytes: Data?
    var manifestJSON: JSONValue?
    var manifest: FPSv2Manifest?
    var policyObject: JSONObject?
    var policyUUID: String?
    var componentList: MediaComponentList?
    var components: [MediaComponentKind] = []
    var classification: FPSv2Classification?
    var iv: Data?
    var segmentCount = 0
    var playlistBytes: [MediaComponentKind: Data] = [:]
    var initBytes: [MediaComponentKind: Data] = [:]
    var master: HLSMasterPlaylist?
    var mediaPlaylists: [MediaComponentKind: HLSMediaPlaylist] = [:]
    var initMovies: [MediaComponentKind: MovieBox] = [:]
    var initTracks: [MediaComponentKind: TrackBox] = [:]
    var initEntries: [MediaComponentKind: any MP4Box] = [:]
    var initProtection: [MediaComponentKind: ProtectionSchemeInfoBox] = [:]
    var initTrackEncryption: [MediaComponentKind: TrackEncryptionBox] = [:]
    var audioChannelConfiguration: Int?
    var keyServiceURL: String?

    init(package: FPSv2Package, options: FPSv2Admission.Options, stopAtFirstFailure: Bool) {
        self.package = package
        self.options = options
        self.stopAtFirstFailure = stopAtFirstFailure
    }

    var report: AdmissionReport { AdmissionReport(results: results, keyServiceURL: keyServiceURL) }

    /// Runs `body` for `check` unless admission stopped or a prerequisite did not pass.
    func step(_ check: AdmissionCheck, requires: [AdmissionCheck] = [], _ body: () throws(FPSv2Error) -> Outcome) {
        if stopped {
            record(check, .notRun, "admission stopped at an earlier failure")
            return
        }
        for prerequisite in requires {
            let status = statuses[prerequisite]
            guard status == .passed || status == .notApplicable || status == .verifiedOnRead else {
                record(check, .notRun, "needs \(prerequisite.section) (\(prerequisite.rawValue)) to pass first")
                return
            }
        }
        do {
            switch try body() {
            case .passed(let detail): record(check, .passed, detail)
            case .notApplicable(let detail): record(check, .notApplicable, detail)
            case .notRun(let detail): record(check, .notRun, detail)
            case .verifiedOnRead(let detail): record(check, .verifiedOnRead, detail)
            }
        } catch {
            record(check, .failed, error.reason)
            if stopAtFirstFailure { stopped = true }
        }
    }

    private func record(_ check: AdmissionCheck, _ status: AdmissionCheckResult.Status, _ detail: String) {
        statuses[check] = status
        results.append(AdmissionCheckResult(check: check, status: status, detail: detail))
    }

    func refuse(_ check: AdmissionCheck, _ reason: String) -> FPSv2Error {
        FPSv2Error(.refused, reason, check: check)
    }

    func runAll() {
        runContainerChecks()
        runEntryNameChecks()
        runManifestChecks()
        runPolicyChecks()
        runKeyAccessChecks()
        runComponentEntryChecks()
        runPlaylistChecks()
        runInitChecks()
    }
}
