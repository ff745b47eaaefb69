import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import Testing
import MediaDRMZIP
@testable import Packager

/// A KAS key pair made with the openssl CLI once per process, and helpers that open a package
/// the way the key holder would.
enum KASFixture {
    /// The directory holding the pair, or why openssl could not make it (every test that needs
    /// the key then fails with that reason instead of running against a missing key).
    static let made: Result<String, TestFailure> = {
        let dir = TestMedia.directory + "/kas"
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for arguments in [["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", dir + "/kas.key"],
                              ["pkey", "-in", dir + "/kas.key", "-pubout", "-out", dir + "/kas.pem"]] {
                let result = try run("/usr/bin/openssl", arguments)
                guard result.status == 0 else {
                    return .failure(TestFailure("openssl \(arguments[0]) exited \(result.status): \(result.stderr)"))
                }
            }
            return .success(dir)
        } catch {
            return .failure(TestFailure("the KAS key pair could not be made with openssl: \(error)"))
        }
    }()
    static var directory: String { get throws { try made.get() } }
    static var privateKeyPath: String { get throws { try directory + "/kas.key" } }
    static var publicKeyPath: String { get throws { try directory + "/kas.pem" } }
    static var publicKeyPEM: String { get throws { try String(contentsOfFile: try publicKeyPath, encoding: .utf8) } }

    static let policy = #"{"arkavo:classification":{"filter":"passed","flagged":[],"v":1},"body":{"dataAttributes":[{"attribute":"https://example.com/attr/tier/value/gold"}],"dissem":[]}}"#

    static func options(policy: String = KASFixture.policy) throws -> PackageOptions {
        PackageOptions(kasURL: "https://kas.example.com", kasPublicKeyPEM: try publicKeyPEM, kasKID: "k1", policyJSON: Data(policy.utf8))
    }
}

/// A package opened with the KAS private key.
struct OpenedPackage {
    var entries: [String: Data]
    var names: [String]
    var manifest: JSONObject
    var policyBase64: String
    var policy: JSONObject
    var keys: [String: Data]

    init(path: String) throws {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            entries = [:]
            for name in names { entries[name] = FileManager.default.contents(atPath: path + "/" + name) }
        } else {
            let reader = try ZIPReader(path: path)
            names = reader.entries.map(\.name)
            entries = [:]
            for entry in reader.entries { entries[entry.name] = try reader.read(entry) }
        }
        let manifestBytes = try #require(entries["manifest.json"])
        manifest = try #require(try JSONParser.parse(manifestBytes).object)
        let info = try #require(manifest["encryptionInformation"]?.object)
        policyBase64 = try #require(info["policy"]?.string)
        let policyBytes = try Base64.decode(policyBase64)
        policy = try #require(try JSONParser.parse(policyBytes).object)
        let components = try #require(policy["arkavo:components"]?.array)
        let access = try #require(info["keyAccess"]?.array)
        #expect(access.count == components.count)
        let privateKey = try KASPrivateKey(pemRepresentation: try String(contentsOfFile: KASFixture.privateKeyPath, encoding: .utf8))
        keys = [:]
        for (component, object) in zip(components, access) {
            let id = try #require(component.object?["id"]?.string)
            let key = try KeyAccessObject(json: object).unwrap(with: privateKey)
            keys[id] = key.withUnsafeBytes { Data($0) }
        }
    }

    /// The init and every segment of a component, concatenated as a player would fetch them.
    func stream(_ id: String) throws -> Data {
        var data = try #require(entries["\(id)-init.mp4"])
        var n = 0
        while let segment = entries["\(id)-segment\(n).m4s"] {
            data += segment
            n += 1
        }
        return data
    }

    /// HMAC-SHA256 computed by the openssl CLI, base64: independent of the code under test.
    static func opensslHMAC(keyHex: String, message: Data) throws -> String {
        let r = try run("/usr/bin/openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(keyHex)", "-binary"], input: message)
        guard r.status == 0 else { throw TestFailure("openssl HMAC failed: \(r.stderr)") }
        return Base64.encode(r.stdout)
    }
}
