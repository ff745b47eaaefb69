import Foundation
import Testing
import MediaDRMZIP
@testable import Client

/// A second BUILT `kas`, serving HTTPS with a certificate from the private test CA made by the
/// openssl CLI (subjectAltName IP:127.0.0.1), its own data directory, and fps-v2 packages made
/// for it by the BUILT `packager`: a plain one, a rental whose purchase window is 60 s, one
/// limited to one stream per viewer, and a copy of the plain one whose manifest has the video and
/// audio keyAccess objects swapped (the archive rewritten in the exact fps-v2 layout). Apart from
/// the main fixture's KAS so its live-session counts stay its own.
final class SecureKASFixture: @unchecked Sendable {
    let base: PlaybackFixture
    let tls: TLSFixture
    let kasURL: String
    let caFile: URL
    let auditLog: URL
    let token: String
    let expiredRentalToken: String
    let packageFile: URL
    let rentalPackageFile: URL
    let singleStreamPackageFile: URL
    let swappedPackageFile: URL
    let directory: URL
    private let packager: String
    private let packageArguments: [String]

    static let lock = NSLock()
    nonisolated(unsafe) static var made: Result<SecureKASFixture, FixtureError>?

    static func get() throws -> SecureKASFixture {
        try lock.withLock {
            if made == nil { made = Result { () throws(FixtureError) in try SecureKASFixture() } }
            return try made!.get()
        }
    }

    private init() throws(FixtureError) {
        do {
            base = try PlaybackFixture.get()
            tls = try TLSFixture.shared.get()
        } catch {
            throw FixtureError("fixtures: \(error)")
        }
        caFile = tls.directory.appendingPathComponent("ca.pem")
        directory = base.directory.appendingPathComponent("secure")
        let kas = try Tools.builtTool("kas", env: "KAS")
        let packager = try Tools.builtTool("packager", env: "PACKAGER")
        let data = directory.appendingPathComponent("kas-data").path
        try Tools.check(Tools.run(kas, ["keys", "generate", "--data-dir", data]), "kas keys generate")
        let publicKey = directory.appendingPathComponent("kas.pem")
        let exported = try Tools.run(kas, ["keys", "export-public", "--data-dir", data])
        try Tools.check(exported, "kas keys export-public")
        do { try exported.stdout.write(to: publicKey) } catch { throw FixtureError("cannot write the KAS public key") }
        token = try PlaybackFixture.token(kas, data, sub: "carol", claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"]}"#)
        auditLog = URL(fileURLWithPath: data).appendingPathComponent("audit.log")
        let line = try PlaybackFixture.spawn(kas, ["serve", "--listen", "127.0.0.1:0", "--data-dir", data,
                                                   "--tls-cert", tls.serverCertificate.path, "--tls-key", tls.serverKey.path],
                                             log: directory.appendingPathComponent("kas.log"),
                                             ready: { $0.contains(#""event":"listening""#) })
        guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let address = json["address"] as? String, let port = address.split(separator: ":").last else {
            throw FixtureError("kas serve logged no address")
        }
        kasURL = "https://127.0.0.1:\(port)"

        let policy = directory.appendingPathComponent("policy.json")
        do {
            try Data(#"{"body":{"dataAttributes":[{"attribute":"\#(PlaybackFixture.attribute)"}]}}"#.utf8).write(to: policy)
        } catch {
            throw FixtureError("cannot write the policy")
        }
        packageArguments = ["--kas-public-key", publicKey.path, "--policy", policy.path,
                      "--segment-duration", "2", "--classification", #"{"filter":"passed","flagged":[],"v":1}"#]
        self.packager = packager
        let common = ["--kas-url", kasURL, "--quiet"] + packageArguments
        let folder = directory, clip = base.source.path
        func package(_ name: String, _ extra: [String]) throws(FixtureError) -> URL {
            let url = folder.appendingPathComponent(name)
            try Tools.check(Tools.run(packager, ["package", clip, "-o", url.path] + common + extra), "packager \(name)")
            return url
        }
        packageFile = try package("talk.tdf", [])
        singleStreamPackageFile = try package("single.tdf", ["--max-streams", "1"])
        rentalPackageFile = directory.appendingPathComponent("rental.tdf")
        let rental = try Tools.run(packager, ["package", base.source.path, "-o", rentalPackageFile.path, "--json",
                                              "--rental-purchase-window", "60"] + ["--kas-url", kasURL] + packageArguments)
        try Tools.check(rental, "packager rental")
        guard let report = try? JSONSerialization.jsonObject(with: rental.stdout) as? [String: Any],
              let uuid = report["policyUUID"] as? String else { throw FixtureError("packager --json gave no policyUUID") }
        // Bought a day ago: the 60 s purchase window closed long before this first play.
        let purchased = Int(Date().timeIntervalSince1970) - 86_400
        expiredRentalToken = try PlaybackFixture.token(
            kas, data, sub: "dave",
            claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"],"rentals":{"\#(uuid)":\#(purchased)}}"#)
        swappedPackageFile = directory.appendingPathComponent("swapped.tdf")
        do {
            try Self.swapKeyAccess(packageFile, to: swappedPackageFile)
        } catch {
            throw FixtureError("cannot rewrite the package: \(error)")
        }
    }

    /// Rewrites `source` with manifest.json's first two keyAccess objects swapped; every other
    /// entry byte-identical, in order, in the exact layout.
    static func swapKeyAccess(_ source: URL, to destination: URL) throws {
        do {
            let reader = try ZIPReader(path: source.path)
            let sink = ZIPMemorySink()
            let writer = try ZIPWriter(sink: sink, layout: .exact)
            for entry in reader.entries {
                var bytes = try reader.read(entry)
                if entry.name == "manifest.json" {
                    guard var manifest = try JSONSerialization.jsonObject(with: bytes) as? [String: Any],
                          var information = manifest["encryptionInformation"] as? [String: Any],
                          var keyAccess = information["keyAccess"] as? [Any], keyAccess.count == 2 else {
                        throw FixtureError("manifest.json has no two keyAccess objects")
                    }
                    keyAccess.swapAt(0, 1)
                    information["keyAccess"] = keyAccess
                    manifest["encryptionInformation"] = information
                    bytes = try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .withoutEscapingSlashes])
                }
                try writer.addEntry(name: entry.name, data: bytes)
            }
            _ = try writer.finish()
            try sink.data.write(to: destination)
        }
    }

    /// A plain package naming another key service URL (a fake one in front of which a test puts the client).
    func package(named name: String, kasURL url: String) throws -> URL {
        let file = directory.appendingPathComponent(name)
        try Tools.check(Tools.run(packager, ["package", base.source.path, "-o", file.path, "--kas-url", url, "--quiet"]
                                  + packageArguments), "packager \(name)")
        return file
    }

    func configuration(token: String, pin: String? = nil) throws -> PlaybackConfiguration {
        PlaybackConfiguration(keyServiceURL: kasURL, credential: try Credential(bearerToken: token),
                              client: try HTTPClient(configuration: HTTPClientConfiguration(
                                  trustedCertificatesPEM: tls.caPEM, publicKeyPin: pin)))
    }

    /// Media sessions started and not ended on this KAS.
    func liveSessionCount() -> Int {
        let text = (try? String(contentsOf: auditLog, encoding: .utf8)) ?? ""
        var live = 0
        for line in text.split(separator: "\n") where line.contains(#""decision":"allow""#) {
            if line.contains(#""event":"session_start""#) { live += 1 }
            if line.contains(#""event":"session_end""#) { live -= 1 }
        }
        return live
    }

    /// The live-session count once it settles at 0 (the audit line of a DELETE may trail its
    /// answer), or what it still is after 60 s, a bound far past any audit write.
    func settledLiveSessionCount() -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if liveSessionCount() == 0 { return 0 }
            usleep(20_000)
        }
        return liveSessionCount()
    }

    /// Audit reasons of denied decisions so far.
    func denialReasons() -> [String] {
        let text = (try? String(contentsOf: auditLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(#""decision":"deny""#) }.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["reason"] as? String
        }
    }
}
