import MediaDRMFPSv2
import Foundation
import Packager
import MediaDRMToolSupport

enum InspectVerb {
    static let verb = ToolVerb(
        "inspect",
        summary: "Show what an fps-v2 package or a tdf-hls stream holds and how it is read.",
        discussion: """
            Runs every reader admission check of draft-arkavo-tdf-fairplay-01 §4 to §9 (and the §12 \
            limits) through the shared FPSv2Admission code, without any key or network request and \
            without reading a segment, and prints each check's identifier with pass, FAIL, n/a (does \
            not apply: a ZIP rule for a directory, an audio rule without audio) or not run (an earlier \
            failure left it without input). §5.2 accepts only https://platform.arkavo.net as the key \
            service; --kas-url adds another accepted one (repeatable). Exit 0 when admitted, 1 otherwise. \
            For a tdf-hls stream directory (master.m3u8, docs/formats.md): its renditions, the policy \
            uuid and media rules of its segments, and the KAS route that serves their keys (the OpenTDF \
            rewrap, or the media rewrap through a media session when the policy has media rules).
            """,
        options: [
            .repeated("kas-url", valueName: "url", help: "Also accept this key service URL (§5.2 #2); repeatable."),
            .json,
        ],
        arguments: [ToolArgument("package", help: "The package (ZIP file or directory).")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let path = try arguments.requiredArgument("package")
        let urls = arguments.values("kas-url")
        for url in urls where KeyServiceURL.normalize(url) == nil {
            throw UsageError("invalid value '\(url)' for '--kas-url': expected an https origin (or http to localhost)")
        }
        if TDFHLSInspectSummary.isStream(path) {
            let summary = try TDFHLSInspectSummary(directory: path)
            if arguments.flag("json") { try console.printJSON(summary) } else { summary.print(to: console) }
            return
        }
        let package: FPSv2Package
        do { package = try FPSv2Package(path: path) } catch { throw ToolFailure("cannot open '\(path)': \(error.reason)") }
        let options = FPSv2Admission.Options(acceptedKeyServiceURLs: [KeyServiceURL.platform] + urls)
        let report = FPSv2Admission.check(package, options: options)
        let summary = InspectSummary(path: path, package: package, report: report, options: options)
        if arguments.flag("json") {
            try console.printJSON(summary)
        } else {
            console.print("package: \(path) (\(package.isDirectory ? "directory" : "ZIP"))")
            if let uuid = summary.policyUUID { console.print("policy uuid: \(uuid)") }
            if !summary.components.isEmpty { console.print("components: \(summary.components.joined(separator: ", "))") }
            if let n = summary.segments { console.print("segments: \(n) per component") }
            if let d = summary.duration { console.print(String(format: "duration: %.3f s", d)) }
            if let flagged = summary.classificationFlagged {
                console.print("classification: \(flagged.isEmpty ? "clean" : "flagged " + flagged.joined(separator: ", "))")
            }
            for result in report.results {
                console.print(result.description)
            }
            console.print(summary.admitted ? "admitted: yes" : "admitted: no")
        }
        guard summary.admitted else {
            let failed = report.results.filter { $0.status == .failed }.count
            if report.result(for: .keyAccessURL)?.status == .failed, let url = report.keyServiceURL {
                throw ToolFailure("the package fails \(failed) admission check(s): its key service \(url) is not accepted; "
                                  + "add --kas-url \(url) to accept it")
            }
            throw ToolFailure("the package fails \(failed) admission check(s)")
        }
    }
}

/// What `inspect` reports: the admitted package's summary when admission succeeds, and every
/// check with its outcome.
struct InspectSummary: Encodable {
    struct Check: Encodable {
        var id: String
        var section: String
        var status: String
        var detail: String
    }

    var package: String
    var format: String
    var admitted: Bool
    var policyUUID: String?
    var components: [String] = []
    var segments: Int?
    var duration: Double?
    var classificationFlagged: [String]?
    var acceptedKeyServices: [String]
    var checks: [Check]

    init(path: String, package: FPSv2Package, report: AdmissionReport, options: FPSv2Admission.Options) {
        self.package = path
        format = package.isDirectory ? "directory" : "zip"
        admitted = report.isAdmitted
        acceptedKeyServices = options.acceptedKeyServiceURLs
        checks = report.results.map { Check(id: $0.check.rawValue, section: $0.check.section, status: $0.status.jsonValue, detail: $0.detail) }
        // The summary comes from the shared admitted model; a refused package has none.
        if report.isAdmitted, let admitted = try? FPSv2Admission.admit(package, options: options) {
            policyUUID = admitted.policyUUID
            components = admitted.components.map(\.kind.id)
            segments = admitted.segmentCount
            duration = admitted.duration
            classificationFlagged = admitted.classification?.flagged
        }
    }
}
