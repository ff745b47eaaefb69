import Foundation
import Packager
import ToolSupport

enum InspectVerb {
    static let verb = ToolVerb(
        "inspect",
        summary: "Show what an fps-v2 package holds and whether a reader admits it.",
        discussion: """
            Runs the reader admission checks of draft-arkavo-tdf-fairplay-01 §4 to §9 (container, \
            manifest, policy, playlists, init segments) without any key or network request, and \
            prints each with pass or fail. Exit 0 when every check passes, 1 otherwise.
            """,
        options: [.json],
        arguments: [ToolArgument("package", help: "The package (ZIP file or directory).")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let path = try arguments.requiredArgument("package")
        let report: InspectionReport
        do { report = try PackageInspector.inspect(path: path) } catch { throw ToolFailure(error.reason) }
        if arguments.flag("json") {
            try console.printJSON(report)
        } else {
            console.print("package: \(path)")
            if let uuid = report.policyUUID { console.print("policy uuid: \(uuid)") }
            if !report.components.isEmpty { console.print("components: \(report.components.joined(separator: ", "))") }
            if let n = report.segments { console.print("segments: \(n) per component") }
            if let d = report.duration { console.print(String(format: "duration: %.3f s", d)) }
            for check in report.checks {
                console.print("[\(check.passed ? "pass" : "FAIL")] \(check.section) \(check.name)\(check.detail.map { ": \($0)" } ?? "")")
            }
            console.print(report.admitted ? "admitted: yes" : "admitted: no")
        }
        guard report.admitted else { throw ToolFailure("the package fails \(report.checks.filter { !$0.passed }.count) admission check(s)") }
    }
}
