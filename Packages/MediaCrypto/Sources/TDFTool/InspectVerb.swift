import Foundation
import MediaDRMTDF
import MediaDRMToolSupport

enum InspectVerb {
    static let verb = ToolVerb(
        "inspect",
        summary: "Show what a Standard TDF's manifest says (no key needed).",
        discussion: """
            KAS URLs, key types and ids, the policy's uuid and attributes, segment sizes and \
            integrity algorithms. Wrapped keys, bindings and signatures are never printed.
            """,
        options: [.json],
        arguments: [ToolArgument("file", help: "The TDF to inspect.")],
        action: run)

    static func run(_ arguments: ParsedArguments, _ console: Console) throws {
        let input = try arguments.requiredArgument("file")
        _ = try FileInput.checkReadable(input, role: "TDF")
        let reader: TDFArchiveReader
        do {
            reader = try TDFArchiveReader(url: URL(fileURLWithPath: input))
        } catch {
            throw ToolFailure.tdf(error, "cannot read TDF '\(input)'")
        }
        let summary = ManifestSummary(file: input, manifest: reader.manifest, policy: reader.policy)
        if arguments.flag("json") {
            try console.printJSON(summary)
        } else {
            console.write(Data(summary.text.utf8))
        }
    }
}
