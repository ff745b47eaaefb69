import Testing
@testable import MediaDRMToolSupport

@Suite struct ArgumentParserTests {
    let verb = Fixtures.encrypt

    @Test func parsesEveryForm() throws {
        let parsed = try ArgumentParser.parse(
            ["in.bin", "-o", "out.tdf", "--kid=k1", "--attribute", "a", "--attribute=b", "--quiet"], verb: verb)
        #expect(parsed.argument("file") == "in.bin")
        #expect(parsed.value("output") == "out.tdf")
        #expect(parsed.value("kid") == "k1")
        #expect(parsed.values("attribute") == ["a", "b"])
        #expect(parsed.flag("quiet"))
        #expect(!parsed.flag("json"))
        #expect(parsed.value("segment-size") == nil)
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--output", "o", "--", "--weird-name"], verb: verb)
        #expect(parsed.argument("file") == "--weird-name")
    }

    @Test func loneDashIsPositional() throws {
        let parsed = try ArgumentParser.parse(["-", "-o", "x"], verb: verb)
        #expect(parsed.argument("file") == "-")
    }

    @Test func inlineValueMayStartWithDash() throws {
        let parsed = try ArgumentParser.parse(["f", "-o", "x", "--kid=-1"], verb: verb)
        #expect(parsed.value("kid") == "-1")
    }

    @Test(arguments: [
        (["f", "-o", "x", "--nope"], "unknown option '--nope'"),
        (["f", "-o", "x", "-z"], "unknown option '-z'"),
        (["f", "-o", "x", "-qo"], "unknown option '-qo'"),
        (["f", "-o"], "missing value for option '--output'"),
        (["f", "-o", "--kid", "k"], "missing value for option '--output'"),
        (["f"], "missing required option '--output'"),
        (["-o", "x"], "missing argument <file>"),
        (["f", "g", "-o", "x"], "unexpected argument 'g'"),
        (["f", "-o", "x", "-o", "y"], "option '--output' given more than once"),
        (["f", "-o", "x", "--quiet=yes"], "option '--quiet' takes no value"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try ArgumentParser.parse(arguments, verb: verb) }
    }

    @Test func variadicArguments() throws {
        let empty = try ArgumentParser.parse([], verb: Fixtures.list)
        #expect(empty.arguments("files") == [])
        let some = try ArgumentParser.parse(["a", "b", "--", "-c"], verb: Fixtures.list)
        #expect(some.arguments("files") == ["a", "b", "-c"])
    }

    @Test func requiredVariadicNeedsOne() {
        let verb = ToolVerb("x", summary: "x", arguments: [ToolArgument("files", help: "", variadic: true)]) { _, _ in }
        #expect(throws: UsageError("missing argument <files>")) { try ArgumentParser.parse([], verb: verb) }
    }

    @Test(arguments: ["0", "1025", "12a", "-3", "+4", "", " 5", "99999999999999999999999"])
    func integerRangeChecked(text: String) throws {
        let parsed = try ArgumentParser.parse(["f", "-o", "x", "--segment-size=\(text)"], verb: verb)
        #expect(throws: UsageError.self) { try parsed.integer("segment-size", in: 1...1024) }
    }

    @Test func integerAccepted() throws {
        let parsed = try ArgumentParser.parse(["f", "-o", "x", "--segment-size", "1024"], verb: verb)
        #expect(try parsed.integer("segment-size", in: 1...1024) == 1024)
        #expect(try parsed.integer("kid", in: 1...2) == nil)
    }

    @Test func helpRequestStopsAtDoubleDash() {
        #expect(ArgumentParser.isHelpRequest(["x", "-h"]))
        #expect(ArgumentParser.isHelpRequest(["--help"]))
        #expect(!ArgumentParser.isHelpRequest(["--", "--help"]))
        #expect(!ArgumentParser.isHelpRequest(["--helpful"]))
    }
}
