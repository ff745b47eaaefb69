import Client
import Foundation
import MediaDRMZIP

/// A second BUILT `kas`, serving HTTPS with the run's private test CA's server certificate
/// (`TestCA`: subjectAltName IP:127.0.0.1), its own data directory, and fps-v2 packages made
/// for it by the BUILT `packager`: a plain one, a rental whose purchase window is 60 s, one
/// limited to one stream per viewer, and a copy of the plain one whose manifest has the video and
/// audio keyAccess objects swapped (the archive rewritten in the exact fps-v2 layout). Apart from
/// the main fixture's KAS so its live-session counts stay its own.
final class SecureKASFixture: @unchecked Sendable {
    let base: PlaybackFixture
    let kasURL: String
    let caFile: URL
    let caPEM: Data
    /// `--pin` values: the server certificate's key, and one that is not the server's (the CA's).
    let serverPin: String
    let otherPin: String
    let auditLog: URL
    let token: String
    let expiredRentalToken: String
    let packageFile: URL
    let rentalPackageFile: URL
    let singleStreamPackageFile: URL
    let swappedPackageFile: URL
    let directory: URL
    private let kas: KASServe
    private let packager: String
    private let packageArguments: [String]

    /// Made on first use, once per process (a static is initialised once); a failure is every test's.
    static let made: Result<SecureKASFixture, TestFailure> = Result { () throws(TestFailure) in
        do { return try SecureKASFixture() } catch { throw TestFailure("the TLS playback fixture: \(error)") }
    }

    static func get() throws -> SecureKASFixture { try made.get() }

    private init() throws {
        base = try PlaybackFixture.get()
        let tls = try TestCA.material.get()
        caFile = URL(fileURLWithPath: tls.caFile)
        caPEM = try Data(contentsOf: caFile)
        serverPin = try TestCA.pin(ofCertificate: tls.certificateFile)
        otherPin = try TestCA.pin(ofCertificate: tls.caFile)
        directory = URL(fileURLWithPath: Scratch.directory("client-secure"))
        kas = try KASServe("client-secure-kas", arguments: ["--tls-cert", tls.certificateFile, "--tls-key", tls.keyFile])
        guard let port = kas.port else { throw TestFailure("kas serve logged no port: \(kas.address)") }
        kasURL = "https://127.0.0.1:\(port)"
        auditLog = URL(fileURLWithPath: kas.auditLog)
        let publicKey = directory.appendingPathComponent("kas.pem")
        try Data(kas.publicKeyPEM.utf8).write(to: publicKey)
        token = try kas.token(subject: "carol", claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"]}"#)

        let policy = directory.appendingPathComponent("policy.json")
        try Data(Publisher.policy(attributes: [PlaybackFixture.attribute]).utf8).write(to: policy)
        packageArguments = ["--kas-public-key", publicKey.path, "--policy", policy.path,
                            "--segment-duration", "2", "--classification", Publisher.classification]
        let packager = try Tools.packager
        self.packager = packager
        let common = ["--kas-url", kasURL, "--quiet"] + packageArguments
        let folder = directory, clip = base.source.path
        func package(_ name: String, _ extra: [String]) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try run(packager, ["package", clip, "-o", url.path] + common + extra).check("packager \(name)")
            return url
        }
        packageFile = try package("talk.tdf", [])
        singleStreamPackageFile = try package("single.tdf", ["--max-streams", "1"])
        rentalPackageFile = directory.appendingPathComponent("rental.tdf")
        let rental = try run(packager, ["package", base.source.path, "-o", rentalPackageFile.path, "--json",
                                        "--rental-purchase-window", "60"] + ["--kas-url", kasURL] + packageArguments)
        try rental.check("packager rental")
        guard let report = try? JSONSerialization.jsonObject(with: rental.stdout) as? [String: Any],
              let uuid = report["policyUUID"] as? String else { throw TestFailure("packager --json gave no policyUUID") }
        // Bought a day ago: the 60 s purchase window closed long before this first play.
        let purchased = Int(Date().timeIntervalSince1970) - 86_400
        expiredRentalToken = try kas.token(
            subject: "dave",
            claims: #"{"entitlements":["\#(PlaybackFixture.attribute)"],"rentals":{"\#(uuid)":\#(purchased)}}"#)
        swappedPackageFile = directory.appendingPathComponent("swapped.tdf")
        try Self.swapKeyAccess(packageFile, to: swappedPackageFile)
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
                        throw TestFailure("manifest.json has no two keyAccess objects")
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
        try run(packager, ["package", base.source.path, "-o", file.path, "--kas-url", url, "--quiet"] + packageArguments)
            .check("packager \(name)")
        return file
    }

    func configuration(token: String, pin: String? = nil) throws -> PlaybackConfiguration {
        PlaybackConfiguration(keyServiceURL: kasURL, credential: try Credential(bearerToken: token),
                              client: try HTTPClient(configuration: HTTPClientConfiguration(
                                  trustedCertificatesPEM: caPEM, publicKeyPin: pin)))
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
