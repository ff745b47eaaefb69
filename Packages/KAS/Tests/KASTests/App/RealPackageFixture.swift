import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMJSON
import Synchronization
import Testing

/// One real fps-v2 package per test process: an ffmpeg clip (H.264 + AAC, 4 s) packaged by the
/// project's `packager` with the public key and public URL of an in-process KAS
/// (`KASTestHarness`), admitted by the FPSv2 reader, and each component key unwrapped
/// independently by the openssl CLI with the ring's private key file.
final class RealPackage: Sendable {
    static let attribute = "https://example.com/attr/tier/value/gold"

    let harness: KASTestHarness
    let work: String
    /// `manifest.json` exactly as the packager stored it.
    let manifest: Data
    let model: FPSv2Manifest
    let uuid: String
    /// Component id -> content key, unwrapped by `openssl pkeyutl` (OAEP, SHA-1).
    let keys: [String: Data]
    let segmentCount: Int

    private static let made = Mutex<RealPackage?>(nil)

    static func shared() throws -> RealPackage {
        try made.withLock { made in
            if let made { return made }
            let package = try RealPackage()
            made = package
            return package
        }
    }

    private init() throws {
        let openssl = "/usr/bin/openssl"
        let harness = try KASTestHarness()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("kas-real-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        ProjectTools.removeAtExit(work)
        ProjectTools.removeAtExit(harness.dataDirectory)

        let kid = try #require(harness.keyRing.active(.rsa2048)?.kid)
        let admitted = try Self.package(in: work, publicKeyPEM: harness.rsaPublicKeyPEM, kid: kid, kasURL: harness.publicURL)
        #expect(admitted.components.map(\.id) == ["video", "audio"])

        var keys: [String: Data] = [:]
        let privateKey = harness.keyRing.keysDirectory + "/\(kid).pem"
        for component in admitted.components {
            let wrapped = work + "/wrapped-\(component.id).bin"
            try Base64.decode(component.keyAccess.wrappedKey).write(to: URL(fileURLWithPath: wrapped))
            let unwrap = try runProcess(openssl, ["pkeyutl", "-decrypt", "-inkey", privateKey,
                                                  "-pkeyopt", "rsa_padding_mode:oaep", "-in", wrapped])
            try ProjectTools.check(unwrap, "openssl pkeyutl")
            #expect(unwrap.stdout.count == 16)
            keys[component.id] = unwrap.stdout
        }
        #expect(keys["video"] != keys["audio"])

        self.harness = harness
        self.work = work
        self.manifest = admitted.manifestBytes
        self.model = admitted.manifest
        self.uuid = admitted.policyUUID
        self.keys = keys
        self.segmentCount = admitted.segmentCount
    }

    /// Packages the shared test clip with the project's packager for a KAS (its RSA public key,
    /// kid and URL) into `directory`/out.tdf, and admits it with the FPSv2 reader for that URL:
    /// the package is what players get.
    static func package(in directory: String, publicKeyPEM: String, kid: String?, kasURL: String,
                        packagerArguments: [String] = []) throws -> FPSv2AdmittedPackage {
        let publicKey = directory + "/kas.pub.pem"
        try Data(publicKeyPEM.utf8).write(to: URL(fileURLWithPath: publicKey))
        let policy = directory + "/policy.json"
        try Data(#"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"\#(attribute)"}],"dissem":[]}}"#.utf8)
            .write(to: URL(fileURLWithPath: policy))
        let archive = directory + "/out.tdf"
        try ProjectTools.check(runProcess(try ProjectTools.packager(), [
            "package", try ProjectTools.clip(), "-o", archive, "--kas-url", kasURL, "--kas-public-key", publicKey,
            "--policy", policy, "--segment-duration", "2", "--quiet",
        ] + (kid.map { ["--kas-kid", $0] } ?? []) + packagerArguments), "packager")
        return try FPSv2Admission.admit(try FPSv2Package(archivePath: archive), options: .init(acceptedKeyServiceURLs: [kasURL]))
    }

    /// The policy JSON as stored, parsed.
    var policyValue: JSONValue {
        get throws { try JSONParser.parse(Base64.decode(model.policy)) }
    }

    /// The manifest with `change` applied to its model, written canonically.
    func mutated(_ change: (inout FPSv2Manifest) throws -> Void) rethrows -> Data {
        var copy = model
        try change(&copy)
        return copy.jsonData()
    }
}

/// Where the tests find the project's tools, and process helpers.
enum ProjectTools {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The package root (Packages/KAS).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$PACKAGER`; else the products directory of this run (the test bundle's own directory: with
    /// the shared scratch path `make test` uses, that is `.build/debug` at the repository root,
    /// which holds the packager); else the repository's `.build/debug`; else
    /// `Packages/Packager/.build/debug`.
    static func packager() throws -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["PACKAGER"], !env.isEmpty { candidates.append(env) }
        let repository = packageRoot.deletingLastPathComponent().deletingLastPathComponent()
        candidates += [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("packager").path,
            repository.appendingPathComponent(".build/debug/packager").path,
            repository.appendingPathComponent("Packages/Packager/.build/debug/packager").path,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(description: "the project's packager is not built (searched \(candidates.joined(separator: ", "))): "
                          + "run 'make build', or 'swift build' in Packages/Packager, or set PACKAGER")
        }
        return found
    }

    private static let madeClip = Mutex<String?>(nil)

    /// A 4 s H.264 + AAC clip made by ffmpeg once per test process.
    static func clip() throws -> String {
        try madeClip.withLock { made in
            if let made { return made }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kas-clip-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            removeAtExit(directory)
            let clip = directory + "/clip.mp4"
            try check(runProcess("/usr/bin/ffmpeg", [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-f", "lavfi", "-i", "sine",
                "-t", "4", "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-y", clip,
            ]), "ffmpeg")
            made = clip
            return clip
        }
    }

    static func check(_ result: (status: Int32, stdout: Data, stderr: String), _ what: String) throws {
        guard result.status == 0 else {
            throw Failure(description: "\(what) exited \(result.status): \(result.stderr.prefix(2000))")
        }
    }

    nonisolated(unsafe) private static var leftovers: [String] = []
    private static let registered = Mutex(false)

    /// Deletes `path` when the test process exits (shared fixtures outlive every test).
    static func removeAtExit(_ path: String) {
        registered.withLock { registered in
            leftovers.append(path)
            if !registered {
                registered = true
                atexit {
                    for path in ProjectTools.leftovers { try? FileManager.default.removeItem(atPath: path) }
                }
            }
        }
    }
}

