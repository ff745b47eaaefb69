import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import Testing
@testable import Client
#if canImport(Glibc)
import Glibc
#endif

/// Real parts for the playback tests, made once per test process: the BUILT `kas` serving a
/// fresh data directory on 127.0.0.1 (port 0), a 4 s 160x90 clip with sound, an fps-v2 package
/// and a tdf-hls stream packaged by the BUILT `packager` for that KAS, a package for another key
/// service, and Tools/python/range_server.py serving them. Children are killed (SIGKILL) and
/// the directory removed when the process exits.
final class PlaybackFixture: @unchecked Sendable {
    let directory: URL
    let www: URL
    let kasURL: String
    let kasLog: URL
    let auditLog: URL
    let originURL: String
    let source: URL
    let sourceStreamHashes: [String: String]
    let entitledToken: String
    let unentitledToken: String
    /// `kas` and its data directory, for `viewer()`.
    private let kasTool: String
    private let kasData: String
    let packageFile: URL
    let foreignPackageFile: URL
    let tdfHLSDirectory: URL

    static let attribute = "https://example.com/attr/tier/value/premium"
    static let lock = NSLock()
    nonisolated(unsafe) static var made: Result<PlaybackFixture, FixtureError>?
    nonisolated(unsafe) static var children: [pid_t] = []

    static func get() throws -> PlaybackFixture {
        try lock.withLock {
            if made == nil { made = Result { () throws(FixtureError) in try PlaybackFixture() } }
            return try made!.get()
        }
    }

    private init() throws(FixtureError) {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-play-\(UUID().uuidString)")
        www = directory.appendingPathComponent("www")
        atexit {
            for pid in PlaybackFixture.children { kill(pid, SIGKILL) }
            if case .success(let fixture)? = PlaybackFixture.made { try? FileManager.default.removeItem(at: fixture.directory) }
        }
        do {
            try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        } catch {
            throw FixtureError("cannot create \(www.path)")
        }
        let kas = try Tools.builtTool("kas", env: "KAS")
        let packager = try Tools.builtTool("packager", env: "PACKAGER")
        let data = directory.appendingPathComponent("kas-data").path
        try Tools.check(Tools.run(kas, ["keys", "generate", "--data-dir", data]), "kas keys generate")
        let publicKey = directory.appendingPathComponent("kas.pem")
        let exported = try Tools.run(kas, ["keys", "export-public", "--data-dir", data])
        try Tools.check(exported, "kas keys export-public")
        do { try exported.stdout.write(to: publicKey) } catch { throw FixtureError("cannot write the KAS public key") }
        kasTool = kas
        kasData = data
        entitledToken = try Self.token(kas, data, sub: "alice", claims: #"{"entitlements":["\#(Self.attribute)"]}"#)
        unentitledToken = try Self.token(kas, data, sub: "bob", claims: #"{"entitlements":[]}"#)

        kasLog = directory.appendingPathComponent("kas.log")
        auditLog = URL(fileURLWithPath: data).appendingPathComponent("audit.log")
        let kasLine = try Self.spawn(kas, ["serve", "--listen", "127.0.0.1:0", "--data-dir", data], log: kasLog,
                                     ready: { $0.contains(#""event":"listening""#) })
        guard let json = try? JSONSerialization.jsonObject(with: Data(kasLine.utf8)) as? [String: Any],
              let address = json["address"] as? String else { throw FixtureError("kas serve logged no address") }
        kasURL = address

        source = directory.appendingPathComponent("clip.mp4")
        try Tools.check(Tools.run(Tools.ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25",
                                                 "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4",
                                                 "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac",
                                                 "-shortest", source.path]), "ffmpeg clip")
        sourceStreamHashes = try Tools.streamHashes(source)
        let policy = directory.appendingPathComponent("policy.json")
        do {
            try Data(#"{"body":{"dataAttributes":[{"attribute":"\#(Self.attribute)"}]}}"#.utf8).write(to: policy)
        } catch {
            throw FixtureError("cannot write the policy")
        }
        let common = ["--kas-public-key", publicKey.path, "--policy", policy.path, "--segment-duration", "2", "--quiet"]
        let classification = ["--classification", #"{"filter":"passed","flagged":[],"v":1}"#]
        packageFile = www.appendingPathComponent("talk.tdf")
        try Tools.check(Tools.run(packager, ["package", source.path, "-o", packageFile.path, "--kas-url", kasURL]
                                  + common + classification), "packager fps-v2")
        foreignPackageFile = www.appendingPathComponent("foreign.tdf")
        try Tools.check(Tools.run(packager, ["package", source.path, "-o", foreignPackageFile.path,
                                             "--kas-url", "https://kas.elsewhere.example"] + common + classification),
                        "packager fps-v2 (other key service)")
        tdfHLSDirectory = www.appendingPathComponent("stream")
        try Tools.check(Tools.run(packager, ["package", source.path, "-o", tdfHLSDirectory.path + "/", "--profile", "tdf-hls",
                                             "--kas-url", kasURL] + common), "packager tdf-hls")

        let origin = Tools.repositoryRoot.appendingPathComponent("Tools/python/range_server.py").path
        let port = try Self.spawn("/usr/bin/python3", [origin, "--root", www.path], log: directory.appendingPathComponent("origin.err"),
                                  stdoutReady: directory.appendingPathComponent("origin.out"))
        originURL = "http://127.0.0.1:\(port.trimmingCharacters(in: .whitespacesAndNewlines))"
    }

    static func token(_ kas: String, _ data: String, sub: String, claims: String) throws(FixtureError) -> String {
        let output = try Tools.run(kas, ["token", "--sub", sub, "--claims", claims, "--data-dir", data])
        try Tools.check(output, "kas token")
        return String(decoding: output.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts a child whose stdin is a pipe we never close (its EOF at our exit stops the range
    /// server); waits up to 20 s for the first line matching `ready` in `log` (stderr), or for the
    /// first line of `stdoutReady`.
    static func spawn(_ path: String, _ arguments: [String], log: URL, stdoutReady: URL? = nil,
                              ready: @escaping (String) -> Bool = { _ in true }) throws(FixtureError) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let watched = stdoutReady ?? log
        do {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            if let stdoutReady { _ = FileManager.default.createFile(atPath: stdoutReady.path, contents: nil) }
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = try stdoutReady.map { try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
            let stdin = Pipe()
            process.standardInput = stdin
            keptPipes.append(stdin)
            try process.run()
        } catch {
            throw FixtureError("cannot start \(path)")
        }
        children.append(process.processIdentifier)
        // A bounded poll for the ready line; the bound only limits a failure (busy machines are slow).
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let text = (try? String(contentsOf: watched, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { ready(String($0)) }) { return String(line) }
            guard process.isRunning else { throw FixtureError("\(path) exited early: \(text.suffix(400))") }
            usleep(50_000)
        }
        throw FixtureError("\(path) did not become ready within 120 s")
    }

    nonisolated(unsafe) static var keptPipes: [Pipe] = []

    /// A viewer of its own for one test: the suites sharing this KAS run in parallel, so a test
    /// that counts requests or sessions counts only its own viewer's (the KAS logs and audits the
    /// viewer hash: the first 16 hex digits of SHA-256 of the subject).
    struct Viewer {
        let token: String
        let hash: String
    }

    func viewer(entitled: Bool = true) throws -> Viewer {
        let subject = "viewer-\(UUID().uuidString.lowercased())"
        let claims = entitled ? #"{"entitlements":["\#(Self.attribute)"]}"# : #"{"entitlements":[]}"#
        return Viewer(token: try Self.token(kasTool, kasData, sub: subject, claims: claims),
                      hash: Hex.encode(SHA256Digest.hash(data: Data(subject.utf8)).prefix(8)))
    }

    /// Requests of `viewer` the KAS has logged so far.
    func kasRequestCount(of viewer: Viewer) -> Int {
        let text = (try? String(contentsOf: kasLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(#""event":"request""#) && $0.contains(#""viewer":"\#(viewer.hash)""#) }.count
    }

    /// `viewer`'s media sessions started and not ended, from the KAS's audit log.
    func liveSessionCount(of viewer: Viewer) -> Int {
        let (started, ended) = sessionCounts(of: viewer)
        return started - ended
    }

    /// `viewer`'s media sessions started and ended so far, from the KAS's audit log.
    func sessionCounts(of viewer: Viewer) -> (started: Int, ended: Int) {
        let text = (try? String(contentsOf: auditLog, encoding: .utf8)) ?? ""
        var started = 0, ended = 0
        for line in text.split(separator: "\n") where line.contains(#""viewer":"\#(viewer.hash)""#) {
            if line.contains(#""event":"session_start""#), line.contains(#""decision":"allow""#) { started += 1 }
            if line.contains(#""event":"session_end""#), line.contains(#""decision":"allow""#) { ended += 1 }
        }
        return (started, ended)
    }

    func configuration(token: String) throws -> PlaybackConfiguration {
        PlaybackConfiguration(keyServiceURL: kasURL, credential: try Credential(bearerToken: token),
                              client: try HTTPClient())
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}

/// Records what a `ContentKeySessionDelegate` is told.
final class RecordingDelegate: ContentKeySessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var delivered: [[String]] = []
    private var failed: [PlaybackError] = []

    func onKeyDelivered(components: [String]) { lock.withLock { delivered.append(components) } }
    func onKeyFailed(error: PlaybackError) { lock.withLock { failed.append(error) } }

    var deliveries: [[String]] { lock.withLock { delivered } }
    var failures: [PlaybackError] { lock.withLock { failed } }
}
