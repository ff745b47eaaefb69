// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Client
import Foundation
import MediaDRMFPSv2
import MediaDRMToolSupport

/// `player admit`: every admission check of a source, each with its outcome; no key request.
enum AdmitVerb {
    static let verb = ToolVerb(
        "admit",
        summary: "Run every admission check of a package or tdf-hls stream and print each outcome.",
        discussion: """
            SOURCE is what `player play` takes. fps-v2: every reader check of §4–§9 runs (checks \
            after a failure that need its result are "not run"), with --kas as the only accepted key \
            service (without --kas, the platform key service). tdf-hls: the master and media \
            playlists against the profile's grammar and the init segments. No request reaches a key \
            service. Each check prints pass, FAIL, n/a, not run or verified on read (the words of \
            `packager inspect`). Exit 0 when admitted, 1 when refused. --json prints {"profile", \
            "admitted", "checks": [{"check", "status", "detail"}]} on stdout, status in lower case.
            """,
        options: [
            .single("kas", valueName: "url", help: "The accepted key service URL."),
            .single("ca", valueName: "file", help: "PEM certificates to trust for an https source."),
            .json,
        ],
        arguments: [ToolArgument("source", help: "Package file, directory, package URL, tdf-hls master file or URL.")],
        action: run)

    struct Report: Encodable {
        struct Check: Encodable { var check: String; var status: String; var detail: String }
        var profile: String
        var admitted: Bool
        var checks: [Check]
    }

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let sourceText = try arguments.requiredArgument("source")
        var http = HTTPClientConfiguration()
        if let ca = arguments.value("ca") {
            http.trustedCertificatesPEM = try FileInput.read(ca, role: "CA file", maxBytes: 4 << 20)
        }
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: http)
        } catch {
            throw UsageError(error.reason)
        }
        let source: PlaybackSource
        do {
            source = try PlaybackSource(argument: sourceText)
        } catch {
            throw ToolFailure(error.reason)
        }
        let report = PlaybackAdmissionReport.check(source, keyServiceURL: arguments.value("kas"), client: client)
        if arguments.flag("json") {
            try console.printJSON(Report(profile: report.profile, admitted: report.isAdmitted, checks: report.checks.map {
                Report.Check(check: $0.name, status: $0.status.jsonValue, detail: $0.detail)
            }))
        } else {
            for check in report.checks {
                console.print("[\(check.status.label)] \(check.name)" + (check.detail.isEmpty ? "" : ": \(check.detail)"))
            }
            console.print(report.isAdmitted ? "admitted (\(report.profile))" : "refused (\(report.profile))")
        }
        if !report.isAdmitted {
            let failed = report.checks.first { $0.status == .failed } ?? report.checks.first { $0.status == .notRun }
            if failed?.name == AdmissionCheck.keyAccessURL.rawValue, let url = report.keyServiceURL {
                if let kas = arguments.value("kas") {
                    // Only a normalized origin is shown: never a path or query the flag carried.
                    guard let given = KeyServiceURL.normalize(kas) else {
                        throw ToolFailure("refused: --kas is not an https origin (or http to a loopback host); "
                                          + "the package's key service is \(url)")
                    }
                    throw ToolFailure("refused: the package's key service \(url) differs from --kas \(given)")
                }
                throw ToolFailure("refused: the package's key service \(url) is not accepted; give --kas \(url) to accept it")
            }
            throw ToolFailure("refused: check \(failed?.name ?? "incomplete") failed")
        }
    }
}
