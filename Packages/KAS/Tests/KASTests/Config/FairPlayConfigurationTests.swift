import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

extension ConfigTests {
    /// The `fairplay` section, its `KAS_FAIRPLAY_*` equivalents, and the start-up checks of the
    /// files it names.
    @Suite struct FairPlayConfigurationTests {
        private func parse(_ json: String) throws -> KASConfiguration.Overrides {
            try KASConfiguration.fileOverrides(bytes: Array(json.utf8), file: "kas.json", baseDirectory: "/etc/kas")
        }

        private func resolve(_ json: String, environment: [String: String] = [:]) throws -> KASConfiguration {
            try KASConfiguration.resolve([parse(json), KASConfiguration.environmentOverrides(environment)])
        }

        @Test func withoutTheSectionFairPlayIsOff() throws {
            #expect(try KASConfiguration.load().fairPlay == nil)
        }

        @Test func theFileSectionIsReadWithPathsRelativeToItsDirectory() throws {
            let configuration = try resolve("""
            {"fairplay": {"certificateFile": "fps/app-cert.der", "sdkCommand": "/opt/fps/bin/fps-sdk",
                          "sdkArguments": ["--json", "--config", "fps.json"], "timeoutSeconds": 20}}
            """)
            #expect(configuration.fairPlay == KASConfiguration.FairPlaySettings(
                certificateFile: "/etc/kas/fps/app-cert.der",
                transport: .command(executable: "/opt/fps/bin/fps-sdk", arguments: ["--json", "--config", "fps.json"]),
                timeoutSeconds: 20))
            let service = try resolve(#"{"fairplay": {"certificateFile": "/c.der", "sdkURL": "https://fps.internal.example/ckc"}}"#)
            #expect(service.fairPlay == KASConfiguration.FairPlaySettings(
                certificateFile: "/c.der", transport: .url("https://fps.internal.example/ckc"), timeoutSeconds: 10))
        }

        @Test func theEnvironmentHasEquivalents() throws {
            let command = try resolve("{}", environment: [
                "KAS_FAIRPLAY_CERTIFICATE_FILE": "/c.der", "KAS_FAIRPLAY_SDK_COMMAND": "/bin/sdk",
                "KAS_FAIRPLAY_SDK_ARGUMENTS": #"["a b", "c"]"#, "KAS_FAIRPLAY_TIMEOUT_SECONDS": "3",
            ])
            #expect(command.fairPlay == KASConfiguration.FairPlaySettings(
                certificateFile: "/c.der", transport: .command(executable: "/bin/sdk", arguments: ["a b", "c"]), timeoutSeconds: 3))
            let url = try resolve("{}", environment: [
                "KAS_FAIRPLAY_CERTIFICATE_FILE": "/c.der", "KAS_FAIRPLAY_SDK_URL": "http://127.0.0.1:9000/fps",
            ])
            #expect(url.fairPlay?.transport == .url("http://127.0.0.1:9000/fps"))
            #expect(KASConfiguration.unusedEnvironmentVariables(["KAS_FAIRPLAY_SDK_URL": "x", "KAS_FAIRPLAY_SDK": "x"],
                                                                configuration: url) == ["KAS_FAIRPLAY_SDK"])
        }

        @Test func printedConfigurationReadsBack() throws {
            let configuration = try resolve(#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk", "sdkArguments": ["x"]}}"#)
            let text = JSONWriter.string(configuration.jsonValue, options: [.sortedKeys])
            let again = try KASConfiguration.resolve([try parse(text)])
            #expect(again.fairPlay == configuration.fairPlay)
        }

        static let refused: [(String, [String: String], KASConfigurationError.Code)] = [
            (#"{"fairplay": {"sdkCommand": "/bin/sdk"}}"#, [:], .missingValue),
            (#"{"fairplay": {"timeoutSeconds": 5}}"#, [:], .missingValue),
            (#"{"fairplay": {"certificateFile": "/c.der"}}"#, [:], .missingValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk", "sdkURL": "https://fps.example"}}"#, [:], .conflict),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk"}}"#, ["KAS_FAIRPLAY_SDK_URL": "https://fps.example"], .conflict),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkURL": "https://fps.example", "sdkArguments": []}}"#, [:], .conflict),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkURL": "http://fps.example/ckc"}}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkURL": "https://user:pw@fps.example"}}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkURL": "ftp://127.0.0.1/x"}}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk", "timeoutSeconds": 0}}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "", "sdkCommand": "/bin/sdk"}}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk", "sdkArguments": "x"}}"#, [:], .invalidValue),
            (#"{"fairplay": "on"}"#, [:], .invalidValue),
            (#"{"fairplay": {"certificateFile": "/c.der", "sdkCommand": "/bin/sdk", "privateKey": "/k.pem"}}"#, [:], .unknownKey),
            ("{}", ["KAS_FAIRPLAY_CERTIFICATE_FILE": "/c.der", "KAS_FAIRPLAY_SDK_COMMAND": "/bin/sdk", "KAS_FAIRPLAY_SDK_ARGUMENTS": "a,b"], .invalidValue),
            ("{}", ["KAS_FAIRPLAY_CERTIFICATE_FILE": "/c.der", "KAS_FAIRPLAY_SDK_URL": "http://10.0.0.5/fps"], .invalidValue),
        ]

        @Test(arguments: refused)
        func refusesIncompleteOrConflictingSettings(_ item: (String, [String: String], KASConfigurationError.Code)) {
            #expect(throws: KASConfigurationError(item.2, "")) { _ = try resolve(item.0, environment: item.1) }
        }

        @Test func startUpChecksTheFilesAndNamesThem() throws {
            let directory = try TemporaryDirectory("fairplay-config")
            let certificate = directory.appending("app-cert.der")
            try Data([0x30, 0x03, 0x02, 0x01, 0x01]).write(to: URL(fileURLWithPath: certificate))
            let pem = try directory.write("app-cert.pem", "-----BEGIN CERTIFICATE-----\n")
            let notExecutable = try directory.write("sdk.txt", "#!/bin/sh\n")
            let missing = directory.appending("missing.der")
            let cases: [(KASConfiguration.FairPlaySettings, KASConfigurationError.Code, String)] = [
                (.init(certificateFile: missing, transport: .command(executable: "/bin/cat", arguments: [])), .unreadableFile, missing),
                (.init(certificateFile: pem, transport: .command(executable: "/bin/cat", arguments: [])), .invalidValue, pem),
                (.init(certificateFile: certificate, transport: .command(executable: notExecutable, arguments: [])), .unreadableFile, notExecutable),
                (.init(certificateFile: certificate, transport: .command(executable: directory.path, arguments: [])), .unreadableFile, directory.path),
            ]
            for (settings, code, named) in cases {
                let error = #expect(throws: KASConfigurationError.self) { _ = try settings.deployment() }
                #expect(error?.code == code)
                #expect(error?.reason.contains("'\(named)'") == true, "\(error?.reason ?? "")")
            }
            let good = try KASConfiguration.FairPlaySettings(
                certificateFile: certificate, transport: .command(executable: "/bin/cat", arguments: [])).deployment()
            #expect(good.certificate == Data([0x30, 0x03, 0x02, 0x01, 0x01]))
        }
    }
}
