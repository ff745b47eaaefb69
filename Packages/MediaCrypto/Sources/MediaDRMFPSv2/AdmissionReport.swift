// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// The outcome of one admission check.
public struct AdmissionCheckResult: Sendable, Equatable, CustomStringConvertible {
    public enum Status: String, Sendable, Equatable {
        case passed
        case failed
        /// The rule does not apply to this package (a ZIP rule for a directory, the audio rules of
        /// a video-only package, a check the options turned off).
        case notApplicable
        /// A check it depends on did not pass, or admission stopped at an earlier failure.
        case notRun
        /// Checked as far as admission can without reading the media segments; the rest runs
        /// when each segment is read, and a failure then fails that read with this check's
        /// identifier (`FPSv2Admission.Options.LocalHeaders.onRead`). Counts as admitted.
        case verifiedOnRead = "verified on read"
    }

    public let check: AdmissionCheck
    public let status: Status
    /// Why it failed, or what was found; a fixed sentence that never holds a secret.
    public let detail: String

    public init(check: AdmissionCheck, status: Status, detail: String) {
        self.check = check
        self.status = status
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "[\(status.label)] \(check.rawValue)" : "[\(status.label)] \(check.rawValue): \(detail)"
    }
}

extension AdmissionCheckResult.Status {
    /// The word every tool prints for this status (`packager inspect`, `player admit`, text
    /// and JSON alike): one vocabulary, with a failure in capitals in text so it stands out.
    public var label: String {
        switch self {
        case .passed: "pass"
        case .failed: "FAIL"
        case .notApplicable: "n/a"
        case .notRun: "not run"
        case .verifiedOnRead: "verified on read"
        }
    }

    /// `label` for JSON output: the same words, lower case.
    public var jsonValue: String { label.lowercased() }
}

/// Every reader check of §4–§9 with its outcome, in order (`AdmissionCheck.allCases`).
public struct AdmissionReport: Sendable, Equatable, CustomStringConvertible {
    public let results: [AdmissionCheckResult]
    /// The key service the package names (its first `keyAccess.url`, §5.2 normalized), once
    /// admission read it; what a tool shows when that service is not accepted.
    public let keyServiceURL: String?

    public init(results: [AdmissionCheckResult], keyServiceURL: String? = nil) {
        self.results = results
        self.keyServiceURL = keyServiceURL
    }

    /// True when no check failed and none was left unrun.
    public var isAdmitted: Bool {
        results.allSatisfy { $0.status == .passed || $0.status == .notApplicable || $0.status == .verifiedOnRead }
    }

    /// The first check that failed, as admission reports it.
    public var firstFailure: AdmissionCheckResult? {
        results.first { $0.status == .failed }
    }

    public func result(for check: AdmissionCheck) -> AdmissionCheckResult? {
        results.first { $0.check == check }
    }

    public var description: String {
        results.map(\.description).joined(separator: "\n")
    }
}
