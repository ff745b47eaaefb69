import MediaDRMEncoding
import Foundation
import Testing

/// An fps-v2 package written by the project's packager from the fixture clip, unpacked as a
/// directory, with each component's content key unwrapped independently by the openssl CLI.
struct ProjectPackage: Sendable {
    let directory: URL
    let keys: [String: [UInt8]]
    let segmentCount: Int

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: ProjectPackage?

    static func make(_ fixtures: MediaFixtures) throws -> ProjectPackage {
        try lock.withLock {
            if let made { return made }
            let package = try build(fixtures)
            made = package
            return package
        }
    }

    private static func build(_ fixtures: MediaFixtures) throws -> ProjectPackage {
        let work = fixtures.directory.appendingPathComponent("fpsv2")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let privateKey = work.appendingPathComponent("kas.pem"), publicKey = work.appendingPathComponent("kas.pub.pem")
        try Tools.check(Tools.run("/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                                                       "-out", privateKey.path]), "openssl genpkey")
        try Tools.check(Tools.run("/usr/bin/openssl", ["pkey", "-in", privateKey.path, "-pubout", "-out", publicKey.path]),
                        "openssl pkey")
        let policy = work.appendingPathComponent("policy.json")
        try Data(#"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/gold"}],"dissem":[]}}"#.utf8)
            .write(to: policy)
        let output = work.appendingPathComponent("package/")
        try Tools.check(Tools.run(try Tools.projectPackager(), [
            "package", fixtures.source.path, "-o", output.path + "/", "--kas-url", "https://kas.example.com",
            "--kas-public-key", publicKey.path, "--policy", policy.path, "--segment-duration", "2", "--quiet",
        ]), "packager")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("manifest.json")))
        let information = (manifest as? [String: Any])?["encryptionInformation"] as? [String: Any]
        let keyAccess = try #require(information?["keyAccess"] as? [[String: Any]])
        #expect(keyAccess.count == 2)
        var keys: [String: [UInt8]] = [:]
        for (index, component) in ["video", "audio"].enumerated() where index < keyAccess.count {
            let wrapped = try #require(keyAccess[index]["wrappedKey"] as? String)
            let wrappedURL = work.appendingPathComponent("wrapped-\(component).bin")
            try Base64.decode(wrapped).write(to: wrappedURL)
            let unwrap = try Tools.run("/usr/bin/openssl", ["pkeyutl", "-decrypt", "-inkey", privateKey.path,
                                                            "-pkeyopt", "rsa_padding_mode:oaep", "-in", wrappedURL.path])
            try Tools.check(unwrap, "openssl pkeyutl")
            #expect(unwrap.stdout.count == 16)
            keys[component] = [UInt8](unwrap.stdout)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path)
        let count = names.filter { $0.hasPrefix("video-segment") }.count
        return ProjectPackage(directory: output, keys: keys, segmentCount: count)
    }
}
