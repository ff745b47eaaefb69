import Foundation
import Testing

/// Exit statuses and messages of the built `tdf`: 0 success, 1 failure, 64 usage error.
@Suite struct UsageTests {
    @Test(arguments: [["--help"], ["-h"], ["help"], ["encrypt", "--help"], ["decrypt", "--help"], ["inspect", "-h"],
                      ["help", "encrypt"], ["--version"]])
    func helpExitsZero(arguments: [String]) throws {
        let result = try ToolHarness.tdf(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }

    @Test func verbHelpListsItsOptions() throws {
        let encrypt = try ToolHarness.tdf(["encrypt", "--help"]).stdoutText
        for option in ["--output", "--kas-url", "--kas-public-key", "--kid", "--policy", "--attribute",
                       "--segment-size", "--mime-type"] {
            #expect(encrypt.contains(option), "encrypt --help lacks \(option)")
        }
        #expect(try ToolHarness.tdf(["decrypt", "--help"]).stdoutText.contains("--kas-private-key"))
        #expect(try ToolHarness.tdf(["inspect", "--help"]).stdoutText.contains("--json"))
    }

    @Test(arguments: [
        ([], "missing verb"),
        (["frobnicate"], "unknown verb 'frobnicate'"),
        (["encrypt", "in.bin", "--kas-url", "https://k", "--kas-public-key", "k.pub"], "missing required option '--output'"),
        (["encrypt", "in.bin", "-o", "x.tdf", "--kas-public-key", "k.pub"], "missing required option '--kas-url'"),
        (["encrypt", "-o", "x.tdf", "--kas-url", "https://k", "--kas-public-key", "k.pub"], "missing argument <file>"),
        (["encrypt", "a", "b", "-o", "x.tdf", "--kas-url", "https://k", "--kas-public-key", "k.pub"], "unexpected argument 'b'"),
        (["encrypt", "a", "-o", "x.tdf", "--kas-url", "https://k", "--kas-public-key", "k.pub", "--segment-size", "0"], "--segment-size"),
        (["encrypt", "a", "-o", "x.tdf", "--kas-url", "https://k", "--kas-public-key", "k.pub", "--segment-size", "lots"], "--segment-size"),
        (["encrypt", "a", "-o", "x.tdf", "--kas-url", "not a url", "--kas-public-key", "k.pub"], "--kas-url"),
        (["encrypt", "a", "-o", "x.tdf", "--kas-url", "ftp://k/x", "--kas-public-key", "k.pub"], "--kas-url"),
        (["encrypt", "a", "-o", "x.tdf", "--kas-url", "https://k", "--kas-public-key", "k.pub", "--bogus"], "unknown option '--bogus'"),
        (["decrypt", "x.tdf", "-o", "out"], "missing required option '--kas-private-key'"),
        (["decrypt", "x.tdf", "--kas-private-key"], "missing value for option '--kas-private-key'"),
        (["inspect"], "missing argument <file>"),
        (["inspect", "x.tdf", "--json=yes"], "option '--json' takes no value"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) throws {
        let result = try ToolHarness.tdf(arguments)
        #expect(result.status == 64, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("tdf: error: "))
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func badInputsExitOneNamingTheProblem() throws {
        let work = try Workspace()
        defer { work.remove() }
        try work.makeKeyPair(.rsa)
        let (input, _) = try work.randomFile("in.bin", count: 100)
        let notAKey = try work.write("notakey.pem", Data("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8))
        let badPolicy = try work.write("policy.json", Data(#"{"uuid":"a","uuid":"b","body":{}}"#.utf8))
        let made = try ToolHarness.tdf(["encrypt", input, "-o", work.path("good.tdf"), "--kas-url", "https://k",
                                       "--kas-public-key", work.path("rsa.pub")])
        try #require(made.status == 0, "\(made.stderr)")
        let cases: [([String], [String])] = [
            (["encrypt", work.path("missing.bin"), "-o", work.path("o.tdf"), "--kas-url", "https://k", "--kas-public-key", work.path("rsa.pub")],
             ["missing.bin", "No such file"]),
            (["encrypt", input, "-o", work.path("o.tdf"), "--kas-url", "https://k", "--kas-public-key", notAKey],
             ["notakey.pem", "KAS public key"]),
            (["encrypt", input, "-o", work.path("o.tdf"), "--kas-url", "https://k", "--kas-public-key", work.path("rsa.pem")],
             ["rsa.pem", "KAS public key"]),
            (["encrypt", input, "-o", work.path("o.tdf"), "--kas-url", "https://k", "--kas-public-key", work.path("rsa.pub"), "--policy", badPolicy],
             ["policy.json"]),
            (["encrypt", input, "-o", work.path("no/such/dir/o.tdf"), "--kas-url", "https://k", "--kas-public-key", work.path("rsa.pub")],
             ["o.tdf"]),
            (["decrypt", work.path("missing.tdf"), "-o", work.path("o.bin"), "--kas-private-key", work.path("rsa.pem")],
             ["missing.tdf"]),
            (["decrypt", input, "-o", work.path("o.bin"), "--kas-private-key", work.path("rsa.pub")],
             ["rsa.pub", "KAS private key"]),
            (["decrypt", work.path("good.tdf"), "-o", work.path("no/such/dir/o.bin"), "--kas-private-key", work.path("rsa.pem")],
             ["good.tdf", "o.bin"]),
            (["inspect", input], ["in.bin"]),
        ]
        for (arguments, needles) in cases {
            let result = try ToolHarness.tdf(arguments)
            #expect(result.status == 1, "\(arguments): status \(result.status), stderr \(result.stderr)")
            #expect(result.stderr.hasPrefix("tdf: error: "), "\(arguments): \(result.stderr)")
            for needle in needles {
                #expect(result.stderr.contains(needle), "\(arguments): '\(needle)' not in \(result.stderr)")
            }
        }
        #expect(!work.exists("o.tdf"))
        #expect(!work.exists("o.bin"))
        #expect(try work.entries().allSatisfy { !$0.hasPrefix(".") }, "a temporary output was left behind")
    }
}
