// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMFPSv2
import Foundation
import MediaDRMMP4
import Testing
@testable import Packager

/// The packager executable built next to the tests.
enum PackagerBinary {
    /// SwiftPM puts executables beside the test bundle, whatever the scratch path (`make test`
    /// shares one at the repository root); the package's own `.build/debug` is the fallback.
    static var path: String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            package.appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("packager").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[candidates.count - 1]
    }

    static func package(_ input: String, output: String, policy: String? = KASFixture.policy, extra: [String] = [],
                        kasURL: String = "https://kas.example.com") throws -> ProcessResult {
        var arguments = ["package", input, "-o", output, "--kas-url", kasURL,
                         "--kas-public-key", try KASFixture.publicKeyPath, "--quiet"]
        if let policy {
            let file = TestMedia.temporaryDirectory("policy") + "/policy.json"
            try Data(policy.utf8).write(to: URL(fileURLWithPath: file))
            arguments += ["--policy", file]
        }
        return try run(path, arguments + extra)
    }
}

@Suite struct RefusalTests {
    /// Runs the CLI expecting exit 1 with `message` in stderr and nothing left in the output's directory.
    func expectRefusal(_ input: String, policy: String? = KASFixture.policy, extra: [String] = [],
                       kasURL: String = "https://kas.example.com", status: Int32 = 1, _ message: String) throws {
        let dir = TestMedia.temporaryDirectory("refusal")
        let result = try PackagerBinary.package(input, output: dir + "/out.tdf", policy: policy, extra: extra, kasURL: kasURL)
        #expect(result.status == status, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func policyWithComponentsIsRefused() throws {
        try expectRefusal(try TestMedia.standard(), policy: #"{"arkavo:components":[],"body":{"dataAttributes":[{"attribute":"a"}]}}"#,
                          "already has arkavo:components")
    }

    @Test func policyWithoutDataAttributesIsRefused() throws {
        try expectRefusal(try TestMedia.standard(), policy: #"{"body":{"dissem":[]}}"#, "body.dataAttributes")
        try expectRefusal(try TestMedia.standard(), policy: #"{"body":{"dataAttributes":[]}}"#, "body.dataAttributes")
        try expectRefusal(try TestMedia.standard(), policy: nil, "--policy")
    }

    @Test func inputWithoutVideoIsRefused() throws {
        let audioOnly = try TestMedia.make("audio-only.mp4", ["-f", "lavfi", "-i", "sine=frequency=440", "-t", "2", "-c:a", "aac"])
        try expectRefusal(audioOnly, "no video track")
    }

    @Test func twoByteNALLengthsAreRefused() throws {
        // Hand-made: the avcC of the standard clip rewritten to announce 2-byte NAL lengths.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try TestMedia.standard())))
        let tag = Array("avcC".utf8)
        let at = try #require((0 ..< bytes.count - 8).first { Array(bytes[$0 ..< $0 + 4]) == tag })
        #expect(bytes[at + 8] == 0xFF)
        bytes[at + 8] = 0xFD
        let path = TestMedia.temporaryDirectory("nal2") + "/nal2.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try expectRefusal(path, "2-byte NAL unit lengths")
    }

    @Test func truncatedInputsEndInAClearError() throws {
        let source = try TestMedia.standard()
        let faststart = try TestMedia.make("faststart.mp4", TestMedia.standardArguments + ["-movflags", "+faststart"])
        for (file, message) in [(source, "truncated"), (faststart, "truncated")] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            let path = TestMedia.temporaryDirectory("trunc") + "/cut.mp4"
            try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: path))
            try expectRefusal(path, message)
        }
        // Every prefix of a small file fails with a packager error, never a trap.
        let small = try Data(contentsOf: URL(fileURLWithPath: try TestMedia.make(
            "tiny.mp4", ["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10", "-t", "1", "-c:v", "libx264", "-g", "10",
                         "-movflags", "+faststart"])))
        var step = 0
        for length in stride(from: 0, to: small.count, by: 97) {
            let source = MP4MemorySource([UInt8](small.prefix(length)))
            #expect(throws: PackagerError.self) {
                let movie = try SourceMovie(source: source)
                let selection = try SourceSelection(movie: movie)
                _ = try ComponentStream.video(movie, track: selection.video)
            }
            step += 1
        }
        #expect(step > 10)
    }

    @Test func usageErrorsExit64AndHelpExits0() throws {
        let help = try run(PackagerBinary.path, ["package", "--help"])
        #expect(help.status == 0 && help.stdoutText.contains("--segment-duration"))
        let inspectHelp = try run(PackagerBinary.path, ["inspect", "--help"])
        #expect(inspectHelp.status == 0 && inspectHelp.stdoutText.contains("PACKAGE") || inspectHelp.stdoutText.contains("package"))
        let missing = try run(PackagerBinary.path, ["package", try TestMedia.standard()])
        #expect(missing.status == 64)
        let badHDCP = try PackagerBinary.package(try TestMedia.standard(), output: TestMedia.temporaryDirectory("u") + "/o.tdf",
                                                 extra: ["--hdcp", "type9"])
        #expect(badHDCP.status == 64)
        // Offline details without --offline, and offline for tdf-hls: usage errors naming the flag.
        let detailsOnly = try PackagerBinary.package(try TestMedia.standard(), output: TestMedia.temporaryDirectory("u") + "/o.tdf",
                                                     extra: ["--max-offline-devices", "2"])
        #expect(detailsOnly.status == 64 && detailsOnly.stderr.contains("--offline must be true"), "\(detailsOnly.stderr)")
        let offlineHLS = try PackagerBinary.package(try TestMedia.standard(), output: TestMedia.temporaryDirectory("u") + "/o/",
                                                    extra: ["--offline", "--profile", "tdf-hls"])
        #expect(offlineHLS.status == 64 && offlineHLS.stderr.contains("--offline needs --profile fps-v2"), "\(offlineHLS.stderr)")
        let noKeyOutput = try PackagerBinary.package(try TestMedia.standard(), output: TestMedia.temporaryDirectory("u") + "/o.tdf",
                                                     extra: ["--key-output", "/tmp/keys"])
        #expect(noKeyOutput.status == 64, "keys never leave in clear: --key-output does not exist")
        // Keys per resolution class are cmaf's: fps-v2 and tdf-hls refuse the flag with a sentence naming it.
        for (profile, output) in [("fps-v2", "/o.tdf"), ("tdf-hls", "/o/")] {
            let perResolution = try PackagerBinary.package(try TestMedia.standard(), output: TestMedia.temporaryDirectory("u") + output,
                                                           extra: ["--key-per-resolution", "--profile", profile])
            #expect(perResolution.status == 64 && perResolution.stderr.contains("--key-per-resolution keys cmaf video renditions")
                    && perResolution.stderr.contains("use --profile cmaf"), "\(profile): \(perResolution.stderr)")
        }
    }

    /// An output in a directory that does not exist: the path and the OS's reason, exit 1, and
    /// nothing left behind.
    @Test func anOutputInAMissingDirectoryNamesThePathAndTheCause() throws {
        let dir = TestMedia.temporaryDirectory("missing-dir")
        for (output, profile) in [(dir + "/nowhere/out.tdf", "fps-v2"), (dir + "/nowhere/stream/", "tdf-hls")] {
            let result = try PackagerBinary.package(try TestMedia.standard(), output: output, extra: ["--profile", profile])
            #expect(result.status == 1)
            let shown = output.hasSuffix("/") ? String(output.dropLast()) : output
            #expect(result.stderr.contains("cannot write output '"), "\(result.stderr)")
            #expect(result.stderr.contains(shown) || result.stderr.contains(output), "\(result.stderr)")
            #expect(result.stderr.contains("No such file or directory"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/nowhere"))
        }
    }

    @Test func cliPackagesAndInspects() throws {
        let dir = TestMedia.temporaryDirectory("cli")
        let result = try PackagerBinary.package(try TestMedia.standard(), output: dir + "/out.tdf",
                                                extra: ["--json", "--segment-duration", "4", "--max-streams", "2",
                                                        "--allowed-regions", "us,ca", "--hdcp", "type1",
                                                        "--min-security-level", "main", "--no-virtual-machines",
                                                        "--rental-purchase-window", "86400", "--rental-playback-window", "3600",
                                                        "--offline", "--offline-license-duration", "7200",
                                                        "--offline-playback-window", "1800", "--max-offline-devices", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("\"policyUUID\""))
        // §5.2 accepts only the platform key service unless --kas-url names ours.
        let inspect = try run(PackagerBinary.path, ["inspect", dir + "/out.tdf", "--kas-url", "https://kas.example.com"])
        #expect(inspect.status == 0, "\(inspect.stdoutText)")
        #expect(inspect.stdoutText.contains("admitted: yes"))
        #expect(inspect.stdoutText.contains("[pass] \(AdmissionCheck.keyAccessURL.rawValue)"))
        #expect(inspect.stdoutText.contains("[n/a] \(AdmissionCheck.masterChannels.rawValue)") == false)
        for check in AdmissionCheck.allCases {
            #expect(inspect.stdoutText.contains("] \(check.rawValue)"), "inspect prints \(check.rawValue)")
        }
        let platformOnly = try run(PackagerBinary.path, ["inspect", dir + "/out.tdf"])
        #expect(platformOnly.status == 1)
        #expect(platformOnly.stdoutText.contains("[FAIL] \(AdmissionCheck.keyAccessURL.rawValue): the package's key service "
                                                 + "is https://kas.example.com, and the accepted one is https://platform.arkavo.net"),
                "\(platformOnly.stdoutText)")
        #expect(platformOnly.stdoutText.contains("admitted: no"))
        // The error blames the key service, names the package's URL and how to accept it.
        #expect(platformOnly.stderr.contains("its key service https://kas.example.com is not accepted; "
                                             + "add --kas-url https://kas.example.com to accept it"), "\(platformOnly.stderr)")
        let json = try run(PackagerBinary.path, ["inspect", dir + "/out.tdf", "--kas-url", "https://KAS.example.com:443/", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(object["admitted"] as? Bool == true)
        #expect(object["components"] as? [String] == ["video", "audio"])
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == AdmissionCheck.allCases.count)
        #expect(checks.allSatisfy { ["pass", "n/a"].contains($0["status"] as? String ?? "") })
        let package = try OpenedPackage(path: dir + "/out.tdf")
        let media = try #require(package.policy["arkavo:media"]?.object)
        #expect(media["maxConcurrentStreams"]?.int64 == 2)
        #expect(media["allowedRegions"]?.array?.compactMap(\.string) == ["US", "CA"])
        #expect(media["hdcp"]?.string == "type1" && media["minSecurityLevel"]?.string == "main")
        #expect(media["allowVirtualMachines"]?.bool == false)
        #expect(media["rental"]?.object?["purchaseWindowSeconds"]?.int64 == 86400)
        #expect(media["offline"]?.bool == true && media["offlineLicenseDuration"]?.int64 == 7200)
        #expect(media["offlinePlaybackWindow"]?.int64 == 1800 && media["maxOfflineDevices"]?.int64 == 2)
        // A tampered package fails inspection with exit 1.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out.tdf")))
        bytes.append(0)
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/bad.tdf"))
        let bad = try run(PackagerBinary.path, ["inspect", dir + "/bad.tdf", "--kas-url", "https://kas.example.com"])
        #expect(bad.status == 1)
        #expect(bad.stdoutText.contains("[FAIL] §4.3"))
    }

    @Test func classificationIsRequiredForFPSv2() throws {
        let policy = #"{"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/gold"}]}}"#
        try expectRefusal(try TestMedia.standard(), policy: policy, "arkavo:classification")
        try expectRefusal(try TestMedia.standard(), policy: policy, extra: ["--classification", #"{"filter":"failed","flagged":[],"v":1}"#],
                          status: 64, "filter must be")
        try expectRefusal(try TestMedia.standard(), policy: policy, extra: ["--classification", #"{"filter":"passed","flagged":["gore"],"v":1}"#],
                          status: 64, "nudity")
        try expectRefusal(try TestMedia.standard(), extra: ["--classification", #"{"filter":"passed","flagged":[],"v":1}"#],
                          "either in the file or with --classification")
        try expectRefusal(try TestMedia.standard(),
                          policy: #"{"arkavo:classification":{"filter":"passed","flagged":[],"v":"1"},"body":{"dataAttributes":[{"attribute":"a"}]}}"#,
                          "v must be the integer 1")
        // Given on the command line, inline or as a file, it is written into the bound policy.
        let dir = TestMedia.temporaryDirectory("classification")
        let file = dir + "/classification.json"
        try Data(#"{"v":1,"filter":"passed","flagged":["violence","nudity"]}"#.utf8).write(to: URL(fileURLWithPath: file))
        let result = try PackagerBinary.package(try TestMedia.standard(), output: dir + "/out.tdf", policy: policy,
                                                extra: ["--classification", file])
        #expect(result.status == 0, "\(result.stderr)")
        let package = try OpenedPackage(path: dir + "/out.tdf")
        #expect(package.policy["arkavo:classification"]?.object?["flagged"]?.array?.compactMap(\.string) == ["violence", "nudity"])
        let inspect = try run(PackagerBinary.path, ["inspect", dir + "/out.tdf", "--kas-url", "https://kas.example.com"])
        #expect(inspect.stdoutText.contains("classification: flagged violence, nudity"))
    }

    @Test func kasURLMustBeAKeyServiceOrigin() throws {
        try expectRefusal(try TestMedia.standard(), kasURL: "https://kas.example.com/kas?x=1", "https origin")
        try expectRefusal(try TestMedia.standard(), kasURL: "http://kas.example.com", "https origin")
    }
}
