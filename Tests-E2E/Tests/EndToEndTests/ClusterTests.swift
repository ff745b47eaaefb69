import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
@testable import KASTesting
import Testing

/// Issue 19's "Done when": real `kas serve` nodes on loopback sharing one real `redis-server`
/// (AOF, `appendfsync always`, a password) and one key ring (docs/kas.md "Scale-out with Redis").
/// Each test asserts what the nodes answered and in which order, never how long anything took;
/// every wait is a bounded poll whose expiry is a recorded failure.
@Suite(.serialized) struct ClusterTests {
    /// Two nodes, A and B, shared by the tests that leave the store usable; key requests are
    /// limited to 2 per viewer and minute so the shared rate-limit window shows in a few calls.
    private enum Shared {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var running: (ClusterDeployment, ClusterNode, ClusterNode)?

        static func get() throws -> (ClusterDeployment, ClusterNode, ClusterNode) {
            try lock.withLock {
                if let running { return running }
                let cluster = try ClusterDeployment()
                let settings = ["KAS_KEY_REQUESTS_PER_MINUTE": "2"]
                let started: (ClusterDeployment, ClusterNode, ClusterNode)
                do {
                    started = (cluster, try cluster.start("node-a", settings: settings), try cluster.start("node-b", settings: settings))
                } catch {
                    cluster.stop()
                    throw error
                }
                running = started
                atexit { Shared.stop() }
                return started
            }
        }

        static func stop() { lock.withLock { running?.0.stop() } }
    }

    @Test func twentyParallelStartsOverBothNodesAdmitExactlyTheStreamLimit() throws {
        let (cluster, a, b) = try Shared.get()
        let (asset, manifest) = try cluster.publish(try Clips.silent(), mediaFlags: ["--max-streams", "2"])
        // A verified key request teaches the store the asset's limit (docs/kas.md).
        let teacher = ClusterViewer(token: try cluster.token("cluster-teacher"))
        let started = try teacher.startSession(a, asset: asset, playbackID: ClusterViewer.playbackID())
        let session = try #require(started.json?["sessionId"] as? String, "start on A: \(started.status) \(started.text)")
        #expect(try teacher.keyRequest(b, asset: asset, session: session, manifest: manifest).status == 200)
        #expect(try teacher.endSession(a, session).status == 200)

        let viewer = ClusterViewer(token: try cluster.token("cluster-twenty"))
        let answers: [Answer] = try Self.concurrently(20) { (index: Int) throws -> Answer in
            let node = index % 2 == 0 ? a : b
            let answer = try viewer.startSession(node, asset: asset, playbackID: ClusterViewer.playbackID())
            return Answer(node: node.name, status: answer.status, reason: answer.json?["reason"] as? String)
        }
        let admitted = answers.filter { $0.status == 200 }
        let refused = answers.filter { $0.status == 429 && $0.reason == "concurrent_streams" }
        #expect(admitted.count == 2, "\(answers)")
        #expect(refused.count == 18, "\(answers)")
        // Both nodes decided some of the twenty, and each wrote its own audit log, every line
        // naming itself.
        for node in [a, b] {
            let lines = node.auditLines()
            #expect(lines.contains { $0["event"] as? String == "session_start" && $0["asset"] as? String == asset },
                    "node \(node.name) audited no start")
            #expect(lines.allSatisfy { $0["node"] as? String == node.name }, "node \(node.name): \(lines)")
        }
    }

    @Test func aSessionStartedOnAHeartbeatsAndEndsOnB() throws {
        let (cluster, a, b) = try Shared.get()
        let viewer = ClusterViewer(token: try cluster.token("cluster-roaming"))
        let asset = UUID().uuidString.lowercased()
        let started = try viewer.startSession(a, asset: asset, playbackID: ClusterViewer.playbackID())
        let session = try #require(started.json?["sessionId"] as? String, "start on A: \(started.status) \(started.text)")
        #expect(try viewer.heartbeat(b, session).status == 200)
        #expect(try viewer.endSession(b, session).status == 200)
        // Ended through B, so A no longer knows it either.
        #expect(try viewer.heartbeat(a, session).status == 404)
        // The end is audited by B, the node that decided it (an end line names the viewer, not the asset).
        let viewerHash = Identity.viewerHash(issuer: DevIssuer.issuer, subject: "cluster-roaming")
        let ends = { (node: ClusterNode) in
            node.auditLines().filter { $0["event"] as? String == "session_end" && $0["viewer"] as? String == viewerHash }
        }
        #expect(ends(b).count == 1 && ends(b).first?["node"] as? String == "node-b" && ends(a).isEmpty)
    }

    @Test func theRateLimitCountsRequestsToBothNodesTogether() throws {
        let (cluster, a, b) = try Shared.get()
        let token = try cluster.token("cluster-rate")
        // A key request spends the viewer's token before anything else is checked (docs/kas.md),
        // so an empty body costs one. Two per minute: both on A, then B has none left to give.
        var statuses: [String] = []
        for node in [a, a, b, a] {
            let answer = try Curl.request("POST", node.baseURL + "/media/v1/key-request", token: token, json: [String: String]())
            statuses.append("\(node.name) \(answer.status)")
        }
        #expect(statuses == ["node-a 400", "node-a 400", "node-b 429", "node-a 429"])
    }

    @Test func aWrongPasswordStopsStartUpNamingTheStoreAndNeverThePassword() throws {
        let (cluster, a, b) = try Shared.get()
        // The running nodes name their store redacted and their node, and never print the right password.
        let rightPassword = try #require(cluster.redis.url.password)
        for node in [a, b] {
            let listening = try #require(node.events("listening").first)
            #expect((listening["mediaStore"] as? String)?.hasPrefix("redis://") == true && listening["node"] as? String == node.name)
            #expect(!node.output.contains(rightPassword))
        }
        let password = "wrong-\(UUID().uuidString)"
        let url = "redis://default:\(password)@\(cluster.redis.url.host):\(cluster.redis.url.port)/0"
        let result = try Self.serveUntilExit(["serve", "--listen", "127.0.0.1:0", "--data-dir", cluster.work + "/wrong",
                                              "--key-ring-dir", cluster.keyRing, "--store", url])
        #expect(result.status != 0)
        #expect(result.stderr.contains("redis://default:***@\(cluster.redis.url.host):\(cluster.redis.url.port)"), "\(result.stderr)")
        #expect(!result.stderr.contains(password) && !result.stdoutText.contains(password))
        // The same through the environment.
        let viaEnvironment = try Self.serveUntilExit(["serve", "--listen", "127.0.0.1:0", "--data-dir", cluster.work + "/wrong-env",
                                                      "--key-ring-dir", cluster.keyRing],
                                                     environment: ["KAS_STORE_URL": cluster.storeURL, "KAS_STORE_PASSWORD": password])
        #expect(viaEnvironment.status != 0)
        #expect(viaEnvironment.stderr.contains("redis://"), "\(viaEnvironment.stderr)")
        #expect(!viaEnvironment.stderr.contains(password) && !viaEnvironment.stdoutText.contains(password))
    }

    @Test func bothNodesServeTheRotatedKeyAfterSIGHUP() throws {
        let (cluster, a, b) = try Shared.get()
        let before = try Self.activeKid(a)
        #expect(try Self.activeKid(b) == before)
        let rotated = try ClusterDeployment.kasTool(["keys", "rotate", "--algorithm", "rsa:2048", "--data-dir", cluster.keyRing])
        let reloadsBefore = (a.events("keys_reloaded").count, b.events("keys_reloaded").count)
        a.hangUp()
        b.hangUp()
        try Self.poll("both nodes reload the key ring") {
            a.events("keys_reloaded").count > reloadsBefore.0 && b.events("keys_reloaded").count > reloadsBefore.1
        }
        let after = try Self.activeKid(a)
        #expect(after != before)
        #expect(try Self.activeKid(b) == after)
        for text in [rotated.stdoutText, rotated.stderr, a.output, b.output] {
            #expect(!text.contains("PRIVATE KEY"))
        }
    }

    /// `kill -9` of node A while starts and key requests go to both: every start answered 200
    /// (by either node, before or after the kill) is still live through B.
    @Test func killingANodeLosesNoAcknowledgedSession() throws {
        let cluster = try ClusterDeployment()
        defer { cluster.stop() }
        let a = try cluster.start("node-a"), b = try cluster.start("node-b")
        let (asset, manifest) = try cluster.publish(try Clips.silent(), mediaFlags: [])
        let viewers = try (0..<4).map { ClusterViewer(token: try cluster.token("cluster-kill-\($0)")) }
        let acknowledged = Acknowledgements()
        let killed = NSLock()
        nonisolated(unsafe) var killedAfter: Int?
        _ = try Self.concurrently(4) { (worker: Int) throws -> Answer in
            for round in 0..<8 {
                let node = (worker + round) % 2 == 0 ? a : b
                // Node A's first acknowledgements, then its death: the order is fixed by events.
                if acknowledged.count(from: a.name) >= 4 {
                    killed.withLock { if killedAfter == nil { killedAfter = acknowledged.count(from: a.name); a.kill9() } }
                }
                guard let answer = try? viewers[worker].startSession(node, asset: asset, playbackID: ClusterViewer.playbackID()),
                      answer.status == 200, let session = answer.json?["sessionId"] as? String else { continue }
                acknowledged.add(session, node: node.name, viewer: worker)
                _ = try? viewers[worker].keyRequest(node, asset: asset, session: session, manifest: manifest)
            }
            return Answer(node: "", status: 0, reason: nil)
        }
        #expect(killedAfter != nil, "node A was never killed: it acknowledged \(acknowledged.count(from: a.name)) starts")
        #expect(!a.process.isRunning)
        #expect(acknowledged.count(from: a.name) >= 4 && acknowledged.count(from: b.name) > 0)
        for entry in acknowledged.all {
            #expect(try viewers[entry.viewer].heartbeat(b, entry.session).status == 200, "a session acknowledged by \(entry.node) is gone")
        }
    }

    /// Redis killed (`kill -9`) and restarted on the same AOF while four viewers keep starting
    /// sessions and requesting keys on both nodes: every start answers 200 or 503 `state store
    /// unavailable` (503s seen during the outage), the nodes recover by themselves, and every start
    /// answered 200 (before, during or after) and every first play of a delivered key is still there.
    @Test func aRedisRestartMidLoadLosesNothingAcknowledgedAndNeverAdmitsUncounted() throws {
        let cluster = try ClusterDeployment()
        defer { cluster.stop() }
        // Each viewer starts sessions as fast as it can: no budget or bound of its own may refuse one.
        let settings = ["KAS_MAX_LIVE_SESSIONS_PER_VIEWER": "100000", "KAS_KEY_REQUESTS_PER_MINUTE": "1000000",
                        "KAS_SESSION_STARTS_PER_MINUTE": "1000000"]
        let a = try cluster.start("node-a", settings: settings), b = try cluster.start("node-b", settings: settings)
        let (asset, manifest) = try cluster.publish(try Clips.silent(), mediaFlags: [])
        let subjects = (0..<4).map { "cluster-restart-\($0)" }
        let viewers = try subjects.map { ClusterViewer(token: try cluster.token($0)) }
        let acknowledged = Acknowledgements()
        let load = LoadRecord()
        _ = try Self.concurrently(5) { (worker: Int) throws -> Answer in
            guard worker < 4 else {
                // The conductor: Redis dies once starts were acknowledged, comes back once the
                // nodes answered 503, and the load stops once both nodes admitted again after it.
                defer { load.stop() }
                try Self.poll("8 starts are acknowledged") { acknowledged.all.count >= 8 }
                cluster.redis.kill9()
                try Self.poll("the nodes answer 503 while Redis is down") { load.unavailable > 0 }
                try cluster.redis.restart()
                let before = acknowledged.all.count
                try Self.poll("both nodes admit again without a restart") {
                    let after = acknowledged.all.dropFirst(before)
                    return after.contains { $0.node == a.name } && after.contains { $0.node == b.name }
                }
                return Answer(node: "", status: 0, reason: nil)
            }
            var round = 0
            while !load.stopped {
                let node = (worker + round) % 2 == 0 ? a : b
                round += 1
                let answer = try viewers[worker].startSession(node, asset: asset, playbackID: ClusterViewer.playbackID())
                load.started(answer)
                guard answer.status == 200, let session = answer.json?["sessionId"] as? String else { continue }
                acknowledged.add(session, node: node.name, viewer: worker)
                if try viewers[worker].keyRequest(node, asset: asset, session: session, manifest: manifest).status == 200 {
                    load.delivered(to: worker)
                }
            }
            return Answer(node: "", status: 0, reason: nil)
        }
        #expect(load.unexpected.isEmpty, "answers other than 200 and 503 state store unavailable: \(load.unexpected)")
        #expect(load.unavailable > 0)
        #expect(a.process.isRunning && b.process.isRunning)
        for entry in acknowledged.all {
            #expect(try viewers[entry.viewer].heartbeat(entry.node == a.name ? b : a, entry.session).status == 200,
                    "a session acknowledged by \(entry.node) did not survive the restart")
        }
        let client = RedisClient(url: cluster.redis.url, poolSize: 1)
        defer { client.close() }
        let store = RedisMediaStore(client: client)
        #expect(!load.deliveredTo.isEmpty)
        for worker in load.deliveredTo {
            #expect(try store.firstPlay(viewer: Identity.storeKey(issuer: DevIssuer.issuer, subject: subjects[worker]), asset: asset) != nil,
                    "the first play of \(subjects[worker]) is gone")
        }
    }

    // MARK: Helpers

    /// One node's answer to one call.
    struct Answer: Sendable, CustomStringConvertible {
        let node: String
        let status: Int
        let reason: String?
        var description: String { "\(node) \(status)\(reason.map { " " + $0 } ?? "")" }
    }

    /// Runs `body(0..<count)` on `count` threads at once; the results in index order.
    private static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Answer) throws -> [Answer] {
        let group = DispatchGroup()
        let lock = NSLock()
        nonisolated(unsafe) var results = [Answer?](repeating: nil, count: count)
        nonisolated(unsafe) var failure: (any Error)?
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let result = try body(index)
                    lock.withLock { results[index] = result }
                } catch {
                    lock.withLock { failure = error }
                }
            }
        }
        group.wait()
        if let failure { throw failure }
        return results.compactMap { $0 }
    }

    /// Polls `condition` every 50 ms for at most 120 s; expiry fails the test naming `what`.
    private static func poll(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        throw TestFailure("timed out waiting until \(what)")
    }

    /// The active RSA kid a node serves (`GET /kas/v2/kas_public_key`).
    private static func activeKid(_ node: ClusterNode) throws -> String {
        let answer = try Curl.request("GET", node.baseURL + "/kas/v2/kas_public_key?algorithm=rsa:2048")
        guard answer.status == 200, let kid = answer.json?["kid"] as? String else {
            throw TestFailure("public key from \(node.name): \(answer.status) \(answer.text)")
        }
        return kid
    }

    /// `kas` with `arguments` until it exits by itself (a start-up failure); a server that
    /// starts instead is killed past 120 s, which the caller's status check then reports.
    private static func serveUntilExit(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        let executable = try Tools.kas
        let finished = NSLock()
        nonisolated(unsafe) var done = false
        nonisolated(unsafe) var child: pid_t = 0
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) {
            finished.withLock { if !done, child > 0 { kill(child, SIGKILL) } }
        }
        let result = try run(executable, arguments, environment: ClusterDeployment.kasEnvironment(environment)) { pid in
            finished.withLock { child = pid }
        }
        finished.withLock { done = true }
        return result
    }
}

/// What the session starts of a load answered, from several threads, and its stop flag.
final class LoadRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var stopFlag = false
    private var unavailableCount = 0
    private var others: [String] = []
    private var viewers: Set<Int> = []

    var stopped: Bool { lock.withLock { stopFlag } }
    func stop() { lock.withLock { stopFlag = true } }
    /// 503 `state store unavailable` answers so far.
    var unavailable: Int { lock.withLock { unavailableCount } }
    /// Answers that were neither 200 nor that 503.
    var unexpected: [String] { lock.withLock { others } }
    var deliveredTo: Set<Int> { lock.withLock { viewers } }

    func started(_ answer: Curl.Response) {
        lock.withLock {
            if answer.status == 503 && answer.text.contains("state store unavailable") {
                unavailableCount += 1
            } else if answer.status != 200 {
                others.append("\(answer.status) \(answer.text)")
            }
        }
    }

    func delivered(to viewer: Int) { _ = lock.withLock { viewers.insert(viewer) } }
}

/// Sessions acknowledged with 200, by node, from several threads.
final class Acknowledgements: @unchecked Sendable {
    struct Entry { let session: String; let node: String; let viewer: Int }
    private let lock = NSLock()
    private var entries: [Entry] = []

    func add(_ session: String, node: String, viewer: Int) { lock.withLock { entries.append(Entry(session: session, node: node, viewer: viewer)) } }
    func count(from node: String) -> Int { lock.withLock { entries.filter { $0.node == node }.count } }
    var all: [Entry] { lock.withLock { entries } }
}
