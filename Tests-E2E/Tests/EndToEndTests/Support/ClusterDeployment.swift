import Foundation
@testable import KASRedis
@testable import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMZIP

/// A scale-out deployment as docs/kas.md "Scale-out with Redis" describes it: one real
/// `redis-server` (`TestRedis`: AOF with `appendfsync always`, a password) and real `kas serve`
/// processes on loopback, each with its own data directory (its audit log) and node name, all
/// reading one shared key ring (`--key-ring-dir`) and one Redis store (`KAS_STORE_URL`).
/// Plain HTTP on 127.0.0.1. `stop()` ends every process it started.
final class ClusterDeployment: @unchecked Sendable {
    let work: String
    let redis: TestRedis
    /// The data directory whose `keys/` every node reads (`kas keys` runs here).
    let keyRing: String
    /// The URL packages name (a load balancer's, shared by the nodes); key requests are checked
    /// against it.
    let publicURL: String
    private(set) var nodes: [String: ClusterNode] = [:]
    private let lock = NSLock()

    init(redisPassword: String = "cluster-\(UUID().uuidString.prefix(8))") throws {
        work = Scratch.directory("cluster")
        redis = try TestRedis(password: redisPassword, appendFsyncAlways: true, maxmemoryPolicy: "noeviction")
        keyRing = work + "/shared"
        publicURL = "http://127.0.0.1:\(try TestNginx.freePort())"
        do {
            try Self.kasTool(["keys", "generate", "--data-dir", keyRing])
        } catch {
            redis.stop()
            throw error
        }
    }

    /// Starts node `name` (`KAS_NODE`) with `settings` (`KAS_*` variables) on the shared store and
    /// key ring, and waits (bounded) for its `listening` line.
    @discardableResult
    func start(_ name: String, settings: [String: String] = [:]) throws -> ClusterNode {
        var environment = ["KAS_NODE": name, "KAS_STORE_URL": storeURL, "KAS_PUBLIC_URL": publicURL,
                           "KAS_STORE_PASSWORD": redis.url.password ?? ""]
        environment.merge(settings) { $1 }
        let node = try ClusterNode(name: name, dataDirectory: work + "/\(name)", keyRing: keyRing, environment: environment)
        lock.withLock { nodes[name] = node }
        return node
    }

    /// The store URL without its password (that goes in `KAS_STORE_PASSWORD`).
    var storeURL: String { "redis://\(redis.url.host):\(redis.url.port)/\(redis.url.database)" }

    func stop() {
        for node in lock.withLock({ Array(nodes.values) }) { node.stop() }
        redis.stop()
    }

    /// A bearer token from the shared ring's dev issuer, entitled to the publisher's tier.
    func token(_ subject: String) throws -> String {
        try Self.kasTool(["token", "--sub", subject, "--data-dir", keyRing,
                          "--claims", #"{"entitlements":["\#(Publisher.premium)"]}"#]).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An fps-v2 package of `clip` for this cluster's key ring and URL: its asset id and manifest.
    func publish(_ clip: Clips.Clip, mediaFlags: [String]) throws -> (asset: String, manifest: Data) {
        let keyPEM = try Self.kasTool(["keys", "export-public", "--data-dir", keyRing]).stdoutText
        let package = try Publisher.package(clip, profile: .fpsV2, into: Scratch.directory("cluster-origin"),
                                            name: "cluster", kasURL: publicURL, kasPublicKeyPEM: keyPEM, mediaFlags: mediaFlags)
        return (package.assetID, try Data(ZIPReader(path: package.path).read(named: "manifest.json")))
    }

    @discardableResult
    static func kasTool(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ProcessResult {
        let result = try run(try Tools.kas, arguments, environment: kasEnvironment(extra))
        guard result.status == 0 else { throw TestFailure("kas \(arguments.first ?? "") exited \(result.status): \(result.stderr)") }
        return result
    }

    /// The test process's environment without its `KAS_*` variables, plus `extra`.
    static func kasEnvironment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KAS_") }.merging(extra) { $1 }
    }
}

/// One `kas serve` process of a `ClusterDeployment`.
final class ClusterNode: @unchecked Sendable {
    let name: String
    let dataDirectory: String
    let process: Process
    let log: String
    /// `http://127.0.0.1:PORT`.
    let baseURL: String

    init(name: String, dataDirectory: String, keyRing: String, environment: [String: String]) throws {
        self.name = name
        self.dataDirectory = dataDirectory
        log = dataDirectory + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Tools.kas)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--key-ring-dir", keyRing]
        process.environment = ClusterDeployment.kasEnvironment(environment)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(120)
        var address: String?
        while address == nil, Date() < deadline, process.isRunning {
            address = Self.events(in: log, "listening").first?["address"] as? String
            if address == nil { usleep(50_000) }
        }
        guard let address else {
            stopGracefully(process)
            throw TestFailure("kas serve (node \(name)) did not start: \(Self.text(log).suffix(2000))")
        }
        baseURL = address
    }

    /// Graceful stop (SIGTERM), SIGKILL past a bound.
    func stop() { stopGracefully(process) }

    /// `kill -9`: no graceful anything.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGHUP: reload the key ring.
    func hangUp() { kill(process.processIdentifier, SIGHUP) }

    /// The node's JSON log lines of `event`, in order.
    func events(_ event: String) -> [[String: Any]] { Self.events(in: log, event) }

    /// The audit log's lines, parsed, in order.
    func auditLines() -> [[String: Any]] {
        Self.text(dataDirectory + "/audit.log").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Everything the node wrote to stderr.
    var output: String { Self.text(log) }

    private static func events(in file: String, _ event: String) -> [[String: Any]] {
        text(file).split(separator: "\n").filter { $0.contains(#""event":"\#(event)""#) }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private static func text(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

}

/// A viewer of the cluster speaking the media protocol (docs/protocol.md) with the curl CLI to
/// whichever node a call names, as a load balancer would spread them.
struct ClusterViewer {
    let token: String

    func startSession(_ node: ClusterNode, asset: String, playbackID: String) throws -> Curl.Response {
        try Curl.request("POST", node.baseURL + "/media/v1/session/start", token: token,
                         json: ["assetId": asset, "protocol": "tdf", "playbackId": playbackID])
    }

    func heartbeat(_ node: ClusterNode, _ session: String) throws -> Curl.Response {
        try Curl.request("POST", node.baseURL + "/media/v1/session/\(session)/heartbeat", token: token)
    }

    func endSession(_ node: ClusterNode, _ session: String) throws -> Curl.Response {
        try Curl.request("DELETE", node.baseURL + "/media/v1/session/\(session)", token: token)
    }

    /// An open-path key request with a fresh P-256 key; the status only.
    func keyRequest(_ node: ClusterNode, asset: String, session: String, manifest: Data) throws -> Curl.Response {
        let ephemeral = try ECP256.KeyAgreement.PrivateKey()
        return try Curl.request("POST", node.baseURL + "/media/v1/key-request", token: token, json: [
            "assetId": asset, "component": "video", "sessionId": session, "tdfManifest": Base64.encode(manifest),
            "clientPublicKey": ephemeral.publicKey.pemRepresentation,
        ])
    }

    static func playbackID() -> String { Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) }) }
}
