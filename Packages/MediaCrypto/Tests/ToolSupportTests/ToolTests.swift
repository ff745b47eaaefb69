import Testing
@testable import MediaDRMToolSupport

@Suite struct ToolTests {
    @Test func successRunsVerb() {
        let (status, output) = Fixtures.run(["encrypt", "in", "-o", "out"])
        #expect(status == .success)
        #expect(output.stdout == "ok in -> out\n")
        #expect(output.stderr == "demo: working\n")
    }

    @Test func quietSilencesProgressOnly() {
        let (status, output) = Fixtures.run(["encrypt", "in", "-o", "out", "-q"])
        #expect(status == .success)
        #expect(output.stderr == "")
        #expect(output.stdout == "ok in -> out\n")
    }

    @Test func failureExitsOneWithMessage() {
        let (status, output) = Fixtures.run(["encrypt", "in", "-o", "out", "--kid", "fail"])
        #expect(status == .failure)
        #expect(status.rawValue == 1)
        #expect(output.stderr == "demo: error: input 'x': bad field 'kid'\n")
        #expect(output.stdout == "")
    }

    @Test(arguments: [
        ["encrypt", "in"],
        ["encrypt", "in", "-o", "out", "--bogus"],
        ["encrypt", "in", "-o", "out", "extra"],
        ["encrypt", "in", "-o", "out", "--kid", "usage"],
        ["encrypt", "in", "-o", "out", "--segment-size", "0"],
        ["frobnicate"],
        ["--bogus"],
        [],
        ["help", "nope"],
    ])
    func usageErrorsExit64(arguments: [String]) {
        let (status, output) = Fixtures.run(arguments)
        #expect(status == .usage)
        #expect(status.rawValue == 64)
        #expect(output.stderr.hasPrefix("demo: error: "))
        #expect(output.stdout == "")
    }

    @Test func usageErrorShowsVerbUsage() {
        let (_, output) = Fixtures.run(["encrypt", "in"])
        #expect(output.stderr.contains("demo: error: missing required option '--output'\n"))
        #expect(output.stderr.contains("Usage: demo encrypt <file> --output <file>"))
        #expect(output.stderr.contains("See 'demo encrypt --help'."))
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func toolHelp(arguments: [String]) {
        let (status, output) = Fixtures.run(arguments)
        #expect(status == .success)
        #expect(output.stdout.hasPrefix("OVERVIEW: A demo tool.\n"))
        #expect(output.stdout.contains("  encrypt"))
        #expect(output.stdout.contains("  list"))
        #expect(output.stderr == "")
    }

    @Test(arguments: [["encrypt", "--help"], ["encrypt", "-h"], ["help", "encrypt"], ["encrypt", "x", "--bogus", "-h"]])
    func verbHelp(arguments: [String]) {
        let (status, output) = Fixtures.run(arguments)
        #expect(status == .success)
        #expect(output.stdout.hasPrefix("OVERVIEW: Encrypt a file.\n"))
        #expect(output.stdout.contains("-o, --output <file>"))
        #expect(output.stdout.contains("(required)"))
        #expect(output.stdout.contains("(may be repeated)"))
    }

    @Test func version() {
        let (status, output) = Fixtures.run(["--version"])
        #expect(status == .success)
        #expect(output.stdout == "demo 1.2.3\n")
    }

    @Test func unknownErrorTypeIsFailure() {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd (reason)" } }
        let verb = ToolVerb("x", summary: "x") { _, _ in throw Odd() }
        let tool = Tool(name: "t", version: "1", summary: "s", verbs: [verb])
        let (console, output) = Console.capturing(toolName: "t")
        #expect(tool.run(["x"], console: console) == .failure)
        #expect(output.stderr == "t: error: odd (reason)\n")
    }
}
