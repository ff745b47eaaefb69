/// Generates help and usage text from the declarations, so `--help` always matches what the
/// parser accepts.
enum HelpFormatter {
    static let width = 80
    static let column = 28

    static func toolHelp(_ tool: Tool) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(tool.summary)")
        lines.append("")
        lines.append("USAGE: \(tool.name) <verb> [options] [arguments]")
        lines.append("")
        lines.append("VERBS:")
        for verb in tool.verbs {
            lines.append(contentsOf: row(verb.name, verb.summary))
        }
        lines.append("")
        lines.append("OPTIONS:")
        lines.append(contentsOf: row("--version", "Show the version."))
        lines.append(contentsOf: row("-h, --help", "Show help information."))
        lines.append("")
        lines.append("See '\(tool.name) <verb> --help' for the options of each verb.")
        return lines.joined(separator: "\n") + "\n"
    }

    static func verbHelp(_ verb: ToolVerb, toolName: String) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(verb.summary)")
        if let discussion = verb.discussion {
            lines.append("")
            lines.append(contentsOf: wrap(discussion, indent: 0))
        }
        lines.append("")
        lines.append("USAGE: \(usage(verb, toolName: toolName))")
        if !verb.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in verb.arguments {
                lines.append(contentsOf: row("<\(argument.name)>", argument.help))
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in verb.options {
            var left = option.short.map { "-\($0), " } ?? ""
            left += option.displayName
            if option.kind != .flag { left += " <\(option.valueName)>" }
            var help = option.help
            if option.isRequired { help += " (required)" }
            if option.kind == .repeated { help += " (may be repeated)" }
            lines.append(contentsOf: row(left, help))
        }
        lines.append(contentsOf: row("-h, --help", "Show help information."))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line: required options first in declaration order, then optional ones in brackets,
    /// then positional arguments.
    static func usage(_ verb: ToolVerb, toolName: String) -> String {
        var parts = ["\(toolName) \(verb.name)"]
        for argument in verb.arguments where !argument.isOptional {
            parts.append(argument.usageFragment)
        }
        for option in verb.options where option.isRequired {
            parts.append(option.usageFragment)
        }
        for option in verb.options where !option.isRequired {
            parts.append("[\(option.usageFragment)]")
        }
        for argument in verb.arguments where argument.isOptional {
            parts.append(argument.usageFragment)
        }
        return parts.joined(separator: " ")
    }

    private static func row(_ left: String, _ help: String) -> [String] {
        let label = "  " + left
        let helpLines = wrap(help, indent: column)
        guard let first = helpLines.first else { return [label] }
        if label.count + 2 <= column {
            let padded = label + String(repeating: " ", count: column - label.count)
            return [padded + first.dropFirst(column)] + helpLines.dropFirst()
        }
        return [label] + helpLines
    }

    private static func wrap(_ text: String, indent: Int) -> [String] {
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = prefix
            for word in paragraph.split(separator: " ") {
                if line.count > indent, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = prefix
                }
                if line.count > indent { line += " " }
                line += word
            }
            lines.append(line)
        }
        return lines
    }
}
