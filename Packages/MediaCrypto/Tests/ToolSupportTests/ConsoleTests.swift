import Foundation
import Testing
@testable import MediaDRMToolSupport

@Suite struct ConsoleTests {
    struct Summary: Encodable { let name: String; let count: Int; let url: String }

    @Test func jsonIsSortedAndParses() throws {
        let (console, output) = Console.capturing(toolName: "t")
        try console.printJSON(Summary(name: "a", count: 2, url: "https://x/y"))
        let text = output.stdout
        #expect(text.contains("https://x/y"))
        let name = try #require(text.range(of: "\"name\""))
        let count = try #require(text.range(of: "\"count\""))
        #expect(count.lowerBound < name.lowerBound)
        let object = try JSONSerialization.jsonObject(with: output.stdoutData) as? [String: Any]
        #expect(object?["count"] as? Int == 2)
    }

    @Test func streamsAreSeparate() {
        let (console, output) = Console.capturing(toolName: "t")
        console.print("result")
        console.progress("step")
        console.warning("careful")
        console.error("broken")
        #expect(output.stdout == "result\n")
        #expect(output.stderr == "t: step\nt: warning: careful\nt: error: broken\n")
    }
}
