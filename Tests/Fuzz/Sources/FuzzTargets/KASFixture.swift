import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON

/// The whole KAS in process (`KASTestHarness`, as `kas serve` assembles it) on a copy of the
/// fixture key ring, for the targets that post request bodies to its routes. Requests are
/// handed to the application's responder directly: the HTTP layer is the same for every route
/// and is not what these targets fuzz. Limits that would turn a fuzzing run into a stream of
/// 429s (key requests per minute, live sessions per viewer) are raised; session lifetimes are
/// lengthened so a session started at set-up stays live for a whole campaign.
final class KASFixture: Sendable {
    let harness: KASTestHarness
    /// A bearer token for the fixture viewer, entitled to the seeds' attribute.
    let token: String
    private let sessions = SessionCache()

    /// The fixture, started on first use; nil when it cannot start (or was stopped).
    static var shared: KASFixture? { lifecycle.fixture }

    /// Stops the fixture if a target started it; never starts one (at exit, OpenSSL and the
    /// runtime may already be torn down).
    static func stopIfStarted() { lifecycle.stopIfStarted() }

    private static let lifecycle = Lifecycle()

    /// The one playback every session of the fixture (and of the seeds) belongs to, so that a
    /// policy's concurrent-stream limit counts them as one stream.
    static let playbackID = "fuzz-playback-0001"

    /// The fixture key ring, loaded from a private copy (the ring refuses group- or
    /// world-readable key files, and a checkout does not keep modes).
    static let keyRing: KeyRing? = {
        guard let directory = try? privateCopyOfKeyRing() else { return nil }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try? KeyRing.load(dataDirectory: directory)
    }()

    fileprivate init() throws {
        let directory = try Self.privateCopyOfKeyRing()
        do {
            harness = try KASTestHarness(dataDirectory: directory) { configuration in
                configuration.acceptedKASURLs = [FuzzFixtures.keyServiceURL]
                configuration.rateLimits.keyRequestsPerMinute = 1_000_000
                configuration.media.maxLiveSessionsPerViewer = 100_000
                configuration.media.heartbeatSeconds = 86_400
                configuration.media.sessionTimeoutSeconds = 7 * 86_400
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        token = try harness.token(sub: "fuzz-viewer", entitlements: [FuzzFixtures.attribute])
        dataDirectory = directory
    }

    private let dataDirectory: String

    /// Stops the KAS and deletes its data directory (the harness keeps a directory it was given).
    func stop() {
        harness.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Hands one request to the KAS; the response's status.
    func respond(method: HTTPMethod, path: String, headers: [(String, String)] = [], body: [UInt8]) -> HTTPStatus {
        var fields = headers
        fields.append(("Authorization", "Bearer \(token)"))
        let request = ServerRequest(method: method, path: path, headers: ServerHeaders(fields), body: body,
                                    remoteAddress: "127.0.0.1")
        var context = KASRequestContext(core: CoreRequestContext(remoteAddress: "127.0.0.1"))
        return harness.application.responder.respond(to: request, context: &context).status
    }

    /// A live session of the fixture viewer for `asset` and `component` (started on first use,
    /// as a player starts one before its key request), or nil when the KAS refuses to start it.
    func session(asset: String, component: String) -> String? {
        sessions.session(asset: asset, component: component) { () -> String? in
            let body = JSONWriter.bytes(.object(JSONObject([
                ("assetId", .string(asset)), ("component", .string(component)), ("protocol", .string("tdf")),
                ("playbackId", .string(Self.playbackID)),
            ])))
            let request = ServerRequest(method: .post, path: "/media/v1/session/start",
                                        headers: ServerHeaders([("Authorization", "Bearer \(token)")]),
                                        body: body, remoteAddress: "127.0.0.1")
            var context = KASRequestContext(core: CoreRequestContext(remoteAddress: "127.0.0.1"))
            let response = harness.application.responder.respond(to: request, context: &context)
            guard response.status == .ok || response.status == .created,
                  case .object(let object)? = try? JSONParser.parse(response.body),
                  case .string(let id)? = object["sessionId"] else { return nil }
            return id
        }
    }

    private static func privateCopyOfKeyRing() throws -> String {
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("fuzz-kas-\(UUID().uuidString)").path
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let keys = directory + "/" + KeyRing.keysDirectoryName
        try manager.createDirectory(atPath: keys, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let source = FuzzFixtures.keyRingDirectory + "/" + KeyRing.keysDirectoryName
        for name in try manager.contentsOfDirectory(atPath: source) {
            let contents = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
            guard manager.createFile(atPath: keys + "/" + name, contents: contents, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        return directory
    }
}

/// Starts the fixture once, on first use, and stops it once.
private final class Lifecycle: @unchecked Sendable {
    private enum State { case notStarted, started(KASFixture?), stopped }
    private let lock = NSLock()
    private var state = State.notStarted

    var fixture: KASFixture? {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .notStarted:
            let fixture = try? KASFixture()
            state = .started(fixture)
            return fixture
        case .started(let fixture): return fixture
        case .stopped: return nil
        }
    }

    func stopIfStarted() {
        lock.lock()
        defer { lock.unlock() }
        if case .started(let fixture) = state { fixture?.stop() }
        state = .stopped
    }
}

/// Sessions started by the fixture, by asset and component; bounded, so a run that invents
/// assets does not grow without end (past the bound, no new session is started).
private final class SessionCache: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [String: String?] = [:]
    private static let bound = 256

    func session(asset: String, component: String, start: () -> String?) -> String? {
        let key = asset + "/" + component
        lock.lock()
        defer { lock.unlock() }
        if let known = sessions[key] { return known }
        guard sessions.count < Self.bound else { return nil }
        let id = start()
        sessions[key] = id
        return id
    }
}
