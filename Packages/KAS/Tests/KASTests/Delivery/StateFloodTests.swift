import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// Issue 28, "the state store can be filled by one viewer": the attacks an outside tester ran on
/// a real `kas serve`, against the assembled KAS (`KASTestHarness`) on the single node's SQLite
/// store and on a real `redis-server` with a small `maxmemory` (noeviction, as required). A
/// start followed at once by its end never holds a stream, so no stream limit stops such a loop;
/// the per-viewer budgets and the store's record bounds must. Floods run in process (the
/// assembled routes, no socket) with the KAS's clock moved by the test; every assertion is an
/// answer or a stored record, never a duration.
@Suite(.serialized) struct StateFloodTests {
    static let kasURL = "http://localhost:9"

    /// One KAS on `backend`, its clock the test's, a catalogued fps-v2 title (audio and video,
    /// no stream limit) whose keys the KAS can unwrap.
    final class Deployment: @unchecked Sendable {
        let harness: KASTestHarness
        let redis: TestRedis?
        let clock = TestClock()
        let package: TestPackage
        let directory: TemporaryDirectory

        init(_ backend: StateBackend, package: TestPackage? = nil, fairPlay: (any FairPlayKeyModule)? = nil,
             configure: @escaping (inout KASConfiguration) -> Void) throws {
            directory = try TemporaryDirectory("kas-flood")
            _ = try KeyRing.generate(dataDirectory: directory.path)
            redis = backend == .redis ? try TestRedis() : nil
            let url = redis?.url
            let clock = clock
            do {
                harness = try KASTestHarness(dataDirectory: directory.path, configure: { configuration in
                    configuration.store.url = url
                    configuration.acceptedKASURLs = [StateFloodTests.kasURL]
                    configure(&configuration)
                }, fairPlay: fairPlay, clock: { clock.now })
                self.package = try harness.catalogue(try package ?? TestPackage.audioVideo(), kasURL: StateFloodTests.kasURL,
                                                     title: "Flooded talk", now: clock.now)
            } catch {
                redis?.stop()
                throw error
            }
        }

        func stop() {
            harness.stop()
            redis?.stop()
        }

        func token(_ subject: String) throws -> String {
            try harness.token(sub: subject, entitlements: [MediaFixture.attribute], ttl: 3600)
        }

        /// One request answered in process by the assembled routes (middleware included).
        func respond(_ method: HTTPMethod, _ path: String, token: String, json: [(String, JSONValue)]? = nil) -> ServerResponse {
            var headers: ServerHeaders = ["Authorization": "Bearer \(token)"]
            var body: [UInt8] = []
            if let json {
                headers["Content-Type"] = "application/json"
                body = Array(JSONWriter.write(.object(JSONObject(json))))
            }
            var context = KASRequestContext(core: CoreRequestContext(remoteAddress: "127.0.0.1"))
            return harness.application.responder.respond(
                to: ServerRequest(method: method, path: path, headers: headers, body: body, remoteAddress: "127.0.0.1"),
                context: &context)
        }

        func startPlayback(_ token: String, drmSystem: String = "tdf") -> (ServerResponse, JSONObject?) {
            let answer = respond(.post, "/media/v1/playback", token: token,
                                 json: [("assetId", .string(package.uuid)), ("drmSystem", .string(drmSystem))])
            return (answer, Self.object(answer))
        }

        func startSession(_ token: String) -> (ServerResponse, String?) {
            let answer = respond(.post, "/media/v1/session/start", token: token,
                                 json: [("assetId", .string(package.uuid)), ("protocol", "tdf")])
            return (answer, Self.object(answer)?["sessionId"]?.string)
        }

        /// An open-path key request for `component` through `session`; its status.
        func keyRequest(_ token: String, session: String, component: String = "video") throws -> HTTPStatus {
            let (members, _) = try MediaHarness.openKeyRequestBody(asset: package.uuid, component: component,
                                                                   sessionId: session, manifest: try package.manifest())
            return respond(.post, "/media/v1/key-request", token: token, json: members).status
        }

        static func object(_ answer: ServerResponse) -> JSONObject? { (try? JSONParser.parse(answer.body))?.object }

        /// A playback started and at once released (a stream never held); the start's answer.
        func playAndRelease(_ token: String) -> ServerResponse {
            let (answer, object) = startPlayback(token)
            if let id = object?["playbackId"]?.string {
                #expect(respond(.delete, "/media/v1/playback/\(id)", token: token).status == .noContent)
            }
            return answer
        }

        /// A session started and at once ended; the start's answer.
        func startAndEnd(_ token: String) -> ServerResponse {
            let (answer, id) = startSession(token)
            if let id { #expect(respond(.delete, "/media/v1/session/\(id)", token: token).status == .ok) }
            return answer
        }

        /// Repeats `cycle` until an answer is not 200; that answer, or nil within `attempts`.
        func burst(_ attempts: Int, _ cycle: () -> ServerResponse) -> ServerResponse? {
            for _ in 0..<attempts {
                let answer = cycle()
                if answer.status != .ok { return answer }
            }
            return nil
        }

        /// The viewer's stored sessions and playbacks, live or ended, read beside the KAS.
        func stored(of subject: String) throws -> (sessions: Int, playbacks: Int) {
            let viewer = Identity.storeKey(issuer: DevIssuer.issuer, subject: subject)
            if let redis {
                func cardinality(_ key: String) throws -> Int { Int(try redis.redisCLI("ZCARD", "kas:" + key)) ?? -1 }
                return (try cardinality("viewer:\(viewer)") + cardinality("viewer-ended:\(viewer)"),
                        try cardinality("viewer-playbacks:\(viewer)") + cardinality("viewer-playbacks-released:\(viewer)"))
            }
            let database = try SQLiteDatabase(path: KASDataDirectory(directory.path).mediaStore)
            defer { database.close() }
            func count(_ table: String) throws -> Int {
                SQLiteMediaStore.int(try database.query("SELECT COUNT(*) FROM \(table) WHERE viewer = ?", [.text(viewer)]).first?.first)
            }
            return (try count("media_sessions"), try count("playbacks"))
        }
    }

    /// One viewer starts and ends playbacks and sessions in a loop, each turn at once (never
    /// more than one stream), far past what its share of the store holds, and bursts past its
    /// budgets; meanwhile a victim holds a playback (heartbeats, media URL renewals, key
    /// requests) and another viewer starts sessions and playbacks. On Redis the server has
    /// 1 MB of room above what the deployment holds before the flood (`maxmemory`, noeviction):
    /// the loop would fill it many times over without the bounds. Nobody else is ever refused;
    /// the flooder gets 429 `rate limit` with Retry-After; its records stay within its share.
    @Test(arguments: StateBackend.allCases)
    func oneViewersFloodNeverFailsAnotherViewer(_ backend: StateBackend) throws {
        let endedShare = 8
        let deployment = try Deployment(backend) { configuration in
            configuration.rateLimits.playbackStartsPerMinute = 30
            configuration.rateLimits.sessionStartsPerMinute = 30
            configuration.store.maxEndedRecordsPerViewer = endedShare
        }
        defer { deployment.stop() }
        let victim = try deployment.token("victim"), bystander = try deployment.token("bystander")
        let flooder = try deployment.token("flooder")

        // The victim's playback: a session, a key delivered, before the flood.
        let (started, playback) = deployment.startPlayback(victim)
        #expect(started.status == .ok)
        let playbackID = try #require(playback?["playbackId"]?.string)
        let session = try #require(playback?["sessionId"]?.string)
        #expect(try deployment.keyRequest(victim, session: session) == .ok)
        func victimIsServed(_ turn: Int) throws {
            #expect(deployment.respond(.post, "/media/v1/session/\(session)/heartbeat", token: victim).status == .ok, "turn \(turn)")
            let renewed = deployment.respond(.post, "/media/v1/playback/\(playbackID)/media-url", token: victim)
            #expect(renewed.status == .ok, "turn \(turn): \(String(decoding: renewed.body, as: UTF8.self))")
            #expect(try deployment.keyRequest(victim, session: session, component: "video") == .ok, "turn \(turn)")
            let other = deployment.playAndRelease(bystander)
            #expect(other.status == .ok, "turn \(turn): \(String(decoding: other.body, as: UTF8.self))")
            #expect(deployment.startAndEnd(bystander).status == .ok, "turn \(turn)")
        }
        try victimIsServed(0)
        if let redis = deployment.redis {
            let used = try #require(Int(try redis.redisCLI("INFO", "memory").split(separator: "\r\n")
                .first { $0.hasPrefix("used_memory:") }?.dropFirst("used_memory:".count) ?? ""))
            try redis.redisCLI("CONFIG", "SET", "maxmemory", String(used + 1_000_000))
        }

        // The flood: each turn a playback started and released and a session started and
        // ended, two seconds apart by the KAS's clock (the budgets' pace: 30 a minute).
        var limited = 0
        for turn in 1...1200 {
            let answer = deployment.playAndRelease(flooder)
            #expect(answer.status == .ok, "turn \(turn): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(deployment.startAndEnd(flooder).status == .ok, "turn \(turn)")
            // Now and then a burst past the budgets (30 a minute, so at most 30 more succeed):
            // 429 `rate limit` with Retry-After, for playbacks and sessions alike.
            if turn % 200 == 0 {
                let playbackBurst = deployment.burst(31) { deployment.playAndRelease(flooder) }
                let sessionBurst = deployment.burst(31) { deployment.startAndEnd(flooder) }
                for refused in [playbackBurst, sessionBurst] {
                    #expect(refused?.status == .tooManyRequests && refused?.headers["Retry-After"] == "2", "turn \(turn)")
                    #expect(refused.map { String(decoding: $0.body, as: UTF8.self) } == #"{"error":"rate limit"}"#)
                }
                if playbackBurst?.status == .tooManyRequests { limited += 1 }
                try victimIsServed(turn)
            } else if turn % 25 == 0 {
                #expect(deployment.respond(.post, "/media/v1/session/\(session)/heartbeat", token: victim).status == .ok,
                        "turn \(turn)")
            }
            deployment.clock.advance(2)
        }
        #expect(limited == 6)
        try victimIsServed(1201)
        // The flooder's records stay within its share of ended ones (each start cuts them to the
        // share; the one it ended since its last start is the only one more).
        let stored = try deployment.stored(of: "flooder")
        #expect(stored.sessions <= endedShare + 1 && stored.playbacks <= endedShare + 1, "\(stored)")
        let refusals = deployment.harness.auditEvents(sub: "flooder").filter { $0["reason"]?.string == "rate_limited" }
        #expect(Set(refusals.compactMap { $0["event"]?.string }) == ["playback_start", "session_start"])
    }

    /// Many accounts, each within its own limits, fill the store with live playbacks and
    /// sessions: new starts are refused (503 `store_full`), and no live record is dropped for
    /// them — the victim's playback still renews, heartbeats and gets keys. A viewer's third
    /// live playback is refused 429 `too_many_playbacks`; a release makes room again.
    @Test(arguments: StateBackend.allCases)
    func manyAccountsCannotEvictALivePlayback(_ backend: StateBackend) throws {
        let deployment = try Deployment(backend) { configuration in
            configuration.delivery.maxLivePlaybacksPerViewer = 2
            configuration.store.maxPlaybacks = 10
            configuration.store.maxSessions = 12
        }
        defer { deployment.stop() }
        let victim = try deployment.token("victim")
        let (started, playback) = deployment.startPlayback(victim)
        #expect(started.status == .ok)
        let playbackID = try #require(playback?["playbackId"]?.string)
        let session = try #require(playback?["sessionId"]?.string)

        // Accounts take two live playbacks each until the store holds ten, all live.
        var held: [(token: String, playback: String)] = []
        var full: ServerResponse?
        for account in 0..<8 {
            let token = try deployment.token("account-\(account)")
            for _ in 0..<2 {
                let (answer, object) = deployment.startPlayback(token)
                if let id = object?["playbackId"]?.string {
                    held.append((token, id))
                } else {
                    full = full ?? answer
                }
            }
            if account == 0 {
                let (third, _) = deployment.startPlayback(token)
                #expect(third.status == .tooManyRequests)
                #expect(String(decoding: third.body, as: UTF8.self) == #"{"error":"too many playbacks","reason":"too_many_playbacks"}"#)
            }
        }
        #expect(held.count == 9, "nine playbacks besides the victim's fit a bound of ten")
        let refused = try #require(full)
        #expect(refused.status == .serviceUnavailable)
        #expect(String(decoding: refused.body, as: UTF8.self) == #"{"error":"state store full","reason":"store_full"}"#)
        // Sessions: ten are live (one per playback); two more fit, then the store is full.
        let extra = try deployment.token("session-only")
        #expect(deployment.startSession(extra).0.status == .ok)
        #expect(deployment.startSession(extra).0.status == .ok)
        let sessionRefused = deployment.startSession(extra).0
        #expect(sessionRefused.status == .serviceUnavailable)
        #expect(String(decoding: sessionRefused.body, as: UTF8.self) == #"{"error":"state store full","reason":"store_full"}"#)
        #expect(deployment.harness.auditEvents(sub: "session-only").last?["reason"]?.string == "store_full")

        // The victim's live playback was never dropped to make room.
        #expect(deployment.respond(.post, "/media/v1/session/\(session)/heartbeat", token: victim).status == .ok)
        #expect(deployment.respond(.post, "/media/v1/playback/\(playbackID)/media-url", token: victim).status == .ok)
        #expect(try deployment.keyRequest(victim, session: session) == .ok)
        // A release frees a playback and its session at once: the next start fits.
        let (owner, id) = held[0]
        #expect(deployment.respond(.delete, "/media/v1/playback/\(id)", token: owner).status == .noContent)
        #expect(deployment.startPlayback(try deployment.token("late")).0.status == .ok)
    }

    /// A restart of a single node mid-playback (the data directory kept): the playback still
    /// renews its media URL, and the licence URL handed out before the restart still gets a CKC.
    @Test func aRestartKeepsALivePlaybackAndItsLicenceURL() throws {
        let ckc = Data("the CKC".utf8)
        let package = try TestPackage.audioVideo()
        let transport = RecordingSDKTransport(ckc: ckc, spcAssetID: package.uuid + "/video")
        let first = try Deployment(.local, package: package, fairPlay: transport.module) { _ in }
        let token = try first.token("viewer")
        let (started, playback) = first.startPlayback(token, drmSystem: "fairplay")
        #expect(started.status == .ok, "\(String(decoding: started.body, as: UTF8.self))")
        let playbackID = try #require(playback?["playbackId"]?.string)
        let licenseURL = try #require(playback?["licenseUrls"]?.object?["video"]?.string)
        func license(on harness: KASTestHarness) throws -> CurlResult {
            let components = try #require(URLComponents(string: licenseURL))
            return try harness.post(components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? ""), token: nil,
                                    body: Data("spc".utf8), headers: ["Content-Type: application/octet-stream"])
        }
        #expect(try license(on: first.harness).body == ckc)
        first.harness.stop()

        // The same data directory, a new process's KAS: nothing of the playback was in memory only.
        let clock = first.clock
        let second = try KASTestHarness(dataDirectory: first.directory.path, configure: {
            $0.acceptedKASURLs = [StateFloodTests.kasURL]
        }, fairPlay: RecordingSDKTransport(ckc: ckc, spcAssetID: package.uuid + "/video").module, clock: { clock.now })
        defer {
            second.stop()
            first.stop()
        }
        let renewed = try second.post("/media/v1/playback/\(playbackID)/media-url", token: token, json: [])
        #expect(renewed.status == 200, "\(renewed.text)")
        let licensed = try license(on: second)
        #expect(licensed.status == 200 && licensed.body == ckc, "\(licensed.text)")
        // Released after the restart: its licence URL is refused from then on.
        #expect(try second.post("/media/v1/playback/\(playbackID)", token: token, body: Data(), method: "DELETE").status == 204)
        let ended = try license(on: second)
        #expect(ended.status == 403 && ended.text.contains("playback_ended"), "\(ended.text)")
    }
}
