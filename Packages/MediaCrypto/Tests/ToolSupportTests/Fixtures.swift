@testable import MediaDRMToolSupport

/// A small tool shaped like `tdf`, used by the parser and dispatch tests.
enum Fixtures {
    static let encrypt = ToolVerb(
        "encrypt",
        summary: "Encrypt a file.",
        options: [
            .single("output", short: "o", valueName: "file", help: "Where to write.", required: true),
            .single("kid", help: "Key id."),
            .repeated("attribute", valueName: "fqn", help: "Attribute value FQN."),
            .single("segment-size", valueName: "bytes", help: "Segment size."),
            .quiet,
            .json,
        ],
        arguments: [ToolArgument("file", help: "The input file.")]
    ) { parsed, console in
        if parsed.value("kid") == "fail" { throw ToolFailure("input 'x': bad field 'kid'") }
        if parsed.value("kid") == "usage" { throw UsageError("bad kid") }
        _ = try parsed.integer("segment-size", in: 1...1024)
        console.progress("working")
        let file = try parsed.requiredArgument("file")
        console.print("ok \(file) -> \(parsed.value("output") ?? "")")
    }

    static let list = ToolVerb(
        "list",
        summary: "List files.",
        arguments: [ToolArgument("files", help: "Files.", optional: true, variadic: true)]
    ) { parsed, console in
        console.print(parsed.arguments("files").joined(separator: ","))
    }

    static let tool = Tool(name: "demo", version: "1.2.3", summary: "A demo tool.", verbs: [encrypt, list])

    static func run(_ arguments: [String]) -> (ExitCode, CapturedOutput) {
        let (console, output) = Console.capturing(toolName: "demo")
        return (tool.run(arguments, console: console), output)
    }
}
