import MediaDRMEncoding
import Foundation
import Testing

/// An fps-v2 package written by the project's packager from the suite's clip with sound,
/// unpacked as a directory, with each component's content key unwrapped independently by the
/// openssl CLI (no KAS involved).
struct ProjectPackage: Sendable {
    let directory: URL
    let keys: [String: [UInt8]]
    let segmentCount: Int
    let source: URL
    /// `"v"` and `"a"` streamhash MD5 of the clear source (`-c copy`).
    let sourceStreamHashes: [String: String]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: ProjectPackage?

    static func make() throws -> ProjectPackage {
        try lock.withLock {
            if let made { return made }
            let package = try build()
            made = package
            return package
        }
    }

    private static func build() throws -> ProjectPackage {
        let source = URL(fileURLWithPath: try Clips.av().path)
        let work = URL(fileURLWithPath: Scratch.directory("fpsv2"))
        let privateKey = work.appendingPathComponent("kas.pem"), publicKey = work.appendingPathComponent("kas.pub.pem")
        try run(Tools.openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKey.path])
            .check("openssl genpkey")
        try run(Tools.openssl, ["pkey", "-in", privateKey.path, "-pubout", "-out", publicKey.path]).check("openssl pkey")
        let policy = work.appendingPathComponent("policy.json")
        try Data(#"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/gold"}],"dissem":[]}}"#.utf8)
            .write(to: policy)
        let output = work.appendingPathComponent("package/")
        try run(try Tools.packager, [
            "package", source.path, "-o", output.path + "/", "--kas-url", "https://kas.example.com",
            "--kas-public-key", publicKey.path, "--policy", policy.path, "--segment-duration", "2", "--quiet",
        ]).check("packager")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("manifest.json")))
        let information = (manifest as? [String: Any])?["encryptionInformation"] as? [String: Any]
        let keyAccess = try #require(information?["keyAccess"] as? [[String: Any]])
        #expect(keyAccess.count == 2)
        var keys: [String: [UInt8]] = [:]
        for (index, component) in ["video", "audio"].enumerated() where index < keyAccess.count {
            let wrapped = try #require(keyAccess[index]["wrappedKey"] as? String)
            let wrappedURL = work.appendingPathComponent("wrapped-\(component).bin")
            try Base64.decode(wrapped).write(to: wrappedURL)
            let unwrap = try run(Tools.openssl, ["pkeyutl", "-decrypt", "-inkey", privateKey.path,
                                                 "-pkeyopt", "rsa_padding_mode:oaep", "-in", wrappedURL.path])
            try unwrap.check("openssl pkeyutl")
            #expect(unwrap.stdout.count == 16)
            keys[component] = [UInt8](unwrap.stdout)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path)
        let count = names.filter { $0.hasPrefix("video-segment") }.count
        return ProjectPackage(directory: output, keys: keys, segmentCount: count, source: source,
                              sourceStreamHashes: try FFmpeg.streamHashes(source.path))
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.deletingLastPathComponent().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
