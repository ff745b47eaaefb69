import Testing
@testable import MediaDRMToolSupport

@Suite struct HelpFormatterTests {
    @Test func usageLineListsRequiredThenOptional() {
        #expect(HelpFormatter.usage(Fixtures.encrypt, toolName: "demo") ==
            "demo encrypt <file> --output <file> [--kid <value>] [--attribute <fqn> ...] [--segment-size <bytes>] [--quiet] [--json]")
        #expect(HelpFormatter.usage(Fixtures.list, toolName: "demo") == "demo list [<files> ...]")
    }

    @Test func everyDeclaredOptionIsInHelp() {
        let text = HelpFormatter.verbHelp(Fixtures.encrypt, toolName: "demo")
        for option in Fixtures.encrypt.options {
            #expect(text.contains("--\(option.name)"))
        }
        #expect(text.contains("-h, --help"))
        #expect(text.contains("<file>"))
    }

    @Test func longHelpWraps() {
        let long = String(repeating: "word ", count: 40)
        let verb = ToolVerb("x", summary: "x", options: [.flag("a-rather-long-option-name-here", help: long)]) { _, _ in }
        let text = HelpFormatter.verbHelp(verb, toolName: "t")
        for line in text.split(separator: "\n") {
            #expect(line.count <= HelpFormatter.width)
        }
    }
}
