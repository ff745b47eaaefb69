import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command-line tool of the shape `tool verb [options] [arguments]`.
///
/// `run` never exits the process, so tests drive it with a capturing console; `main` is the
/// entry point for an executable target.
public struct Tool: Sendable {
    public let name: String
    public let version: String
    public let summary: String
    public let verbs: [ToolVerb]

    public init(name: String, version: String, summary: String, verbs: [ToolVerb]) {
        self.name = name
        self.version = version
        self.summary = summary
        self.verbs = verbs
    }

    /// Parses `arguments` (without the program name), runs the verb and reports the outcome.
    public func run(_ arguments: [String], console: Console) -> ExitCode {
        guard let first = arguments.first else {
            console.error("missing verb")
            console.printError(HelpFormatter.toolHelp(self))
            return .usage
        }
        switch first {
        case "-h", "--help":
            console.write(Data(HelpFormatter.toolHelp(self).utf8))
            return .success
        case "--version":
            console.print("\(name) \(version)")
            return .success
        case "help":
            return help(for: Array(arguments.dropFirst()), console: console)
        default:
            break
        }
        guard let verb = verbs.first(where: { $0.name == first }) else {
            if first.hasPrefix("-") {
                console.error("unknown option '\(first)'")
            } else {
                console.error("unknown verb '\(first)'")
            }
            console.printError("See '\(name) --help'.")
            return .usage
        }
        return run(verb, Array(arguments.dropFirst()), console: console)
    }

    /// The process entry point: runs with the real command line and exits with the status.
    ///
    /// The process ends with `_exit` after flushing stdio, not `exit`: a verb may return while a
    /// worker thread it abandoned is still inside a library (a cancelled transfer runs until
    /// libcurl's next callback, docs/architecture.md), and `exit` would run the libraries'
    /// teardown (OpenSSL's atexit cleanup frees its global state) under that thread, which then
    /// crashes the process after its answer was given. Every file a tool writes is complete
    /// before its verb returns (written through `AtomicFileWriter`), so nothing is left to the
    /// exit handlers.
    public func main() -> Never {
        let status = run(Array(CommandLine.arguments.dropFirst()), console: .standard(toolName: name))
        fflush(nil)
        _exit(status.rawValue)
    }

    /// The usage line of `verbName`, as shown after a usage error.
    public func usage(of verbName: String) -> String? {
        verbs.first(where: { $0.name == verbName }).map { HelpFormatter.usage($0, toolName: name) }
    }

    /// The full help text of `verbName`.
    public func help(of verbName: String) -> String? {
        verbs.first(where: { $0.name == verbName }).map { HelpFormatter.verbHelp($0, toolName: name) }
    }

    /// The tool's own help text.
    public var help: String { HelpFormatter.toolHelp(self) }

    private func help(for rest: [String], console: Console) -> ExitCode {
        guard let verbName = rest.first else {
            console.write(Data(HelpFormatter.toolHelp(self).utf8))
            return .success
        }
        guard rest.count == 1, let text = help(of: verbName) else {
            console.error(rest.count == 1 ? "unknown verb '\(verbName)'" : "unexpected argument '\(rest[1])'")
            console.printError("See '\(name) --help'.")
            return .usage
        }
        console.write(Data(text.utf8))
        return .success
    }

    private func run(_ verb: ToolVerb, _ tokens: [String], console: Console) -> ExitCode {
        if ArgumentParser.isHelpRequest(tokens) {
            console.write(Data(HelpFormatter.verbHelp(verb, toolName: name).utf8))
            return .success
        }
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser.parse(tokens, verb: verb)
        } catch {
            return report(usage: error, verb: verb, console: console)
        }
        var console = console
        if verb.options.contains(where: { $0.name == ToolOption.quiet.name }), parsed.flag(ToolOption.quiet.name) {
            console.isQuiet = true
        }
        do {
            try verb.action(parsed, console)
            return .success
        } catch let error as UsageError {
            return report(usage: error, verb: verb, console: console)
        } catch let error as ToolFailure {
            console.error(error.message)
            return .failure
        } catch {
            // Module errors describe themselves without secrets (project convention).
            console.error(String(describing: error))
            return .failure
        }
    }

    private func report(usage error: UsageError, verb: ToolVerb, console: Console) -> ExitCode {
        console.error(error.message)
        console.printError("Usage: \(HelpFormatter.usage(verb, toolName: name))\nSee '\(name) \(verb.name) --help'.")
        return .usage
    }
}
