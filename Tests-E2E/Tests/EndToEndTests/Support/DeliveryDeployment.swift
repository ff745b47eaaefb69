import Foundation
@testable import KASTesting

/// A delivery deployment built with the operator's tools (docs/delivery.md): `kas origin-config`
/// run by Debian's nginx on loopback (`TestNginx`) over an origin root, a real `kas serve` over
/// TLS (the run's CA) with `--origin-url`, `--origin-secret-file` and `--delivery-secret-file`,
/// packages made for it by the packager and catalogued by `kas assets add`. `stop()` ends both
/// servers.
final class DeliveryDeployment: @unchecked Sendable {
    let work: String
    let root: String
    let dataDirectory: String
    let deliverySecretFile: String
    let nginx: TestNginx
    let kas: Process
    let kasLog: String
    /// `https://127.0.0.1:PORT`.
    let kasURL: String
    let caFile: String

    /// - Parameters:
    ///   - environment: extra `KAS_*` settings of `kas serve` (a short media-URL margin).
    ///   - httpDirectives: nginx settings (a rate limit that makes a transfer outlast a URL).
    init(environment: [String: String] = [:], httpDirectives: String = "") throws {
        work = Scratch.directory("delivery")
        root = work + "/origin"
        dataDirectory = work + "/data"
        deliverySecretFile = work + "/delivery.secret"
        let originSecretFile = work + "/origin-secret.conf"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Self.kasTool(["keys", "generate", "--data-dir", dataDirectory])
        let port = try TestNginx.freePort()
        let block = try Self.kasTool(["origin-config", "--root", root, "--secret-file", originSecretFile,
                                      "--listen", "127.0.0.1:\(port)", "--access-log", work + "/nginx/logs/access.log"]).stdoutText
        nginx = try TestNginx(serverBlock: block, port: port, prefix: work + "/nginx", httpDirectives: httpDirectives)
        let tls = try TestCA.material.get()
        caFile = tls.caFile
        _ = FileManager.default.createFile(atPath: deliverySecretFile, contents: Data((0..<48).map { _ in UInt8.random(in: 0...255) }),
                                           attributes: [.posixPermissions: 0o600])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Tools.kas)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDirectory,
                             "--tls-cert", tls.certificateFile, "--tls-key", tls.keyFile, "--origin-url", nginx.url,
                             "--origin-secret-file", originSecretFile, "--delivery-secret-file", deliverySecretFile]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }.merging(environment) { $1 }
        kasLog = work + "/kas-serve.log"
        _ = FileManager.default.createFile(atPath: kasLog, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: kasLog))
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            nginx.stop()
            throw error
        }
        kas = process
        var address: String?
        let deadline = Date().addingTimeInterval(120)
        while address == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: kasLog, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.contains(#""event":"listening""#) {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                address = object?["address"] as? String
            }
            if address == nil { usleep(50_000) }
        }
        guard let address else {
            let log = (try? String(contentsOfFile: kasLog, encoding: .utf8)) ?? ""
            stopGracefully(process)
            nginx.stop()
            throw TestFailure("kas serve did not start: \(log.suffix(2000))")
        }
        kasURL = address
    }

    func stop() {
        stopGracefully(kas)
        nginx.stop()
    }


    /// Packages `clip` for this KAS into the origin root as `name` and catalogues it; the asset id.
    func publish(_ clip: Clips.Clip, _ profile: Publisher.Profile, name: String, mediaFlags: [String] = []) throws -> String {
        let keyPEM = try Self.kasTool(["keys", "export-public", "--data-dir", dataDirectory]).stdoutText
        let package = try Publisher.package(clip, profile: profile, into: root, name: name, kasURL: kasURL, kasPublicKeyPEM: keyPEM,
                                            mediaFlags: mediaFlags)
        let path = profile == .fpsV2 ? "/\(name).tdf" : "/\(name)/"
        let added = try Self.kasTool(["assets", "add", package.path, "--path", path, "--title", name,
                                      "--data-dir", dataDirectory, "--public-url", kasURL])
        let asset = added.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard asset == package.assetID else { throw TestFailure("kas assets add printed \(asset), the packager made \(package.assetID)") }
        return asset
    }

    /// A viewer's bearer token from the key ring's dev issuer, entitled to the publisher's tier.
    func token(_ subject: String) throws -> String {
        try Self.kasTool(["token", "--sub", subject, "--data-dir", dataDirectory,
                          "--claims", #"{"entitlements":["\#(Publisher.premium)"]}"#]).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `kas sign-url`: a delivery URL for `subject`.
    func deliveryURL(asset: String, subject: String) throws -> String {
        try Self.kasTool(["sign-url", "--sub", subject, "--asset", asset, "--delivery-secret-file", deliverySecretFile,
                          "--public-url", kasURL, "--claims", #"{"entitlements":["\#(Publisher.premium)"]}"#]).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `player play` with `arguments` (SOURCE or `--asset ID`) to a file; its result and the clear media.
    func play(_ arguments: [String], token: String) throws -> (result: ProcessResult, media: Data?) {
        let output = Scratch.directory("delivery-play") + "/clear.mp4"
        let result = try run(try Tools.player, ["play"] + arguments + ["--kas", kasURL, "--ca", caFile, "--token", token,
                                                                       "--output", output])
        return (result, FileManager.default.contents(atPath: output))
    }

    /// The KAS's request log lines for one route pattern.
    func requests(route: String) -> [String] {
        let text = (try? String(contentsOfFile: kasLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.contains(#""route":"\#(route)""#) }
    }

    /// nginx's access log: one `status path` per request, in order.
    func originRequests() -> [(status: Int, path: String)] {
        let text = (try? String(contentsOfFile: nginx.prefix + "/logs/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            // the block's format: ... "GET /path HTTP/1.1" STATUS SIZE ... (never the query)
            let parts = line.split(separator: "\"")
            guard parts.count > 2 else { return nil }
            let request = parts[1].split(separator: " ")
            let status = Int(parts[2].split(separator: " ").first ?? "") ?? 0
            guard request.count > 1 else { return nil }
            return (status, String(request[1]))
        }
    }

    static func kasTool(_ arguments: [String]) throws -> ProcessResult {
        let result = try run(try Tools.kas, arguments,
                             environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") })
        guard result.status == 0 else { throw TestFailure("kas \(arguments.first ?? "") exited \(result.status): \(result.stderr)") }
        return result
    }
}
