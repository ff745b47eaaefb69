import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Testing

/// The client against a real `redis-server` on loopback (`TestRedis`).
@Suite struct RedisClientTests {
    /// Bound on waiting for the client to recover after a restart: generous for a busy machine.
    private static let recoveryBound: Duration = .seconds(60)

    @Test func repliesOfEveryTypeRoundTrip() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 2)
        defer { client.close() }
        #expect(try client.command("SET", "greeting", "héllo") == .simple("OK"))
        #expect(try client.command("GET", "greeting").string == "héllo")
        let binary: [UInt8] = [0, 13, 10, 255, 0x2a, 0x0d]
        #expect(try client.command(binary: [Array("SET".utf8), Array("bin".utf8), binary]) == .simple("OK"))
        #expect(try client.command("GET", "bin") == .bulk(binary))
        #expect(try redis.redisCLI("STRLEN", "bin") == "6")
        #expect(try client.command("INCRBY", "counter", "41") == .integer(41))
        #expect(try client.command("INCR", "counter").int == 42)
        #expect(try client.command("GET", "missing") == .bulk(nil))
        #expect(try client.command("RPUSH", "list", "a", "", "c") == .integer(3))
        #expect(try client.command("LRANGE", "list", "0", "-1") == .array([.bulk(Array("a".utf8)), .bulk([]), .bulk(Array("c".utf8))]))
        let nested = try client.command("EVAL", "return {1, {'x', {2}}, redis.status_reply('fine')}", "0")
        #expect(nested == .array([.integer(1), .array([.bulk(Array("x".utf8)), .array([.integer(2)])]), .simple("fine")]))
        #expect {
            _ = try client.command("INCR", "greeting")
        } throws: { error in
            (error as? RedisError)?.code == .server && "\(error)".contains("not an integer")
        }
        // The error reply left the connection in step: the next reply is the next command's.
        #expect(try client.command("ECHO", "after") == .bulk(Array("after".utf8)))
        #expect(try client.command("PING") == .simple("PONG"))
    }

    @Test func ipv6AndHostNamesConnectAndBadAddressesAreUnreachable() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        for host in ["::1", "localhost", "127.0.0.1"] {
            var url = redis.url
            url.host = host
            let client = RedisClient(url: url, poolSize: 1)
            defer { client.close() }
            #expect(try client.command("CLIENT", "INFO").string?.contains(host == "::1" ? "addr=[::1]" : "addr=127.0.0.1") == true,
                    "\(host)")
        }
        for url in [RedisURL(host: "127.0.0.1", port: try TestNginx.freePort()), RedisURL(host: "no-such-host.invalid")] {
            let client = RedisClient(url: url, poolSize: 1)
            defer { client.close() }
            do {
                _ = try client.command("PING")
                Issue.record("\(url) answered")
            } catch {
                #expect(error.code == .unreachable && error.reason.contains(url.redacted), "\(error)")
            }
        }
    }

    @Test func evaluateLoadsTheScriptAgainAfterTheCacheIsFlushed() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 1)
        defer { client.close() }
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        // The SHA-1 is the one Redis names the script by.
        #expect(try redis.redisCLI("SCRIPT", "LOAD", script.source) == script.sha1)
        try redis.redisCLI("SCRIPT", "FLUSH")
        #expect(try redis.redisCLI("SCRIPT", "EXISTS", script.sha1) == "0")
        #expect(try client.evaluate(script, keys: ["n"], arguments: ["5"]) == .integer(5))   // NOSCRIPT, then EVAL
        #expect(try redis.redisCLI("SCRIPT", "EXISTS", script.sha1) == "1")
        #expect(try client.evaluate(script, keys: ["n"], arguments: ["2"]) == .integer(7))   // EVALSHA
        try redis.redisCLI("SCRIPT", "FLUSH")
        #expect(try client.evaluate(script, keys: ["n"], arguments: ["1"]) == .integer(8))
    }

    @Test func aclUserAndPasswordOnlyAuthenticateAndAWrongPasswordIsNamedNotPrinted() throws {
        let redis = try TestRedis(password: "default-secret-1")
        defer { redis.stop() }
        try redis.redisCLI("ACL", "SETUSER", "kas", "on", ">acl-secret-2", "~*", "+@all")
        var acl = redis.url
        acl.user = "kas"
        acl.password = "acl-secret-2"
        acl.database = 2
        let aclClient = RedisClient(url: acl, poolSize: 1)
        defer { aclClient.close() }
        #expect(try aclClient.command("SET", "who", "kas") == .simple("OK"))
        #expect(try aclClient.command("ACL", "WHOAMI").string == "kas")
        #expect(try redis.redisCLI("-n", "2", "GET", "who") == "kas")   // SELECT 2 happened on connect
        try aclClient.checkServer()

        let passwordOnly = RedisClient(url: redis.url, poolSize: 1)
        defer { passwordOnly.close() }
        #expect(try passwordOnly.command("ACL", "WHOAMI").string == "default")

        for (user, password) in [(nil, "wrong-secret-3"), ("kas", "wrong-secret-3")] as [(String?, String)] {
            var wrong = redis.url
            wrong.user = user
            wrong.password = password
            let client = RedisClient(url: wrong, poolSize: 1)
            defer { client.close() }
            do {
                try client.checkServer()
                Issue.record("a wrong password was accepted")
            } catch {
                #expect(error.code == .authentication)
                #expect(error.reason.contains(wrong.redacted), "\(error.reason)")
                #expect(!"\(error)".contains("wrong-secret-3") && !"\(error)".contains("default-secret-1"))
            }
        }

        var none = redis.url
        none.password = nil
        let anonymous = RedisClient(url: none, poolSize: 1)
        defer { anonymous.close() }
        #expect(throws: RedisError(.authentication, "")) { try anonymous.command("GET", "who") }
    }

    @Test func anEvictingPolicyIsRefusedNamingPolicyAndFix() throws {
        let redis = try TestRedis(maxmemoryPolicy: "allkeys-lru")
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 1)
        defer { client.close() }
        do {
            try client.checkServer()
            Issue.record("allkeys-lru was accepted")
        } catch {
            #expect(error.code == .evictionPolicy)
            #expect(error.reason.contains("allkeys-lru") && error.reason.contains("first-play")
                    && error.reason.contains("maxmemory-policy noeviction"), "\(error.reason)")
        }
        try redis.redisCLI("CONFIG", "SET", "maxmemory-policy", "noeviction")
        try client.checkServer()
    }

    @Test func aStoppedRedisFailsFastWithoutConnectingThenTheClientRecoversByItself() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        // A long first backoff, so "no connect during the backoff" does not depend on timing.
        let patient = RedisClient(url: redis.url, poolSize: 4, timeout: 2,
                                  backoff: .init(initial: .seconds(600), maximum: .seconds(600)))
        defer { patient.close() }
        #expect(try patient.command("SET", "k", "v") == .simple("OK"))
        redis.stop()
        // The idle connection is seen closed and dropped; the connect that follows is refused.
        #expect(throws: RedisError(.unreachable, "")) { try patient.command("GET", "k") }
        let attempts = patient.connectAttempts
        for _ in 0..<50 {
            #expect(throws: RedisError(.unreachable, "")) { try patient.command("GET", "k") }
        }
        #expect(patient.connectAttempts == attempts, "calls during the backoff must not connect")

        // A short backoff: the client finds the restarted server on its own.
        let eager = RedisClient(url: redis.url, poolSize: 4, timeout: 2,
                                backoff: .init(initial: .milliseconds(10), maximum: .milliseconds(200)))
        defer { eager.close() }
        #expect(throws: RedisError(.unreachable, "")) { try eager.command("PING") }
        try redis.restart()
        #expect(eventually(timeout: Self.recoveryBound) { (try? eager.command("PING")) == .simple("PONG") },
                "the client did not reconnect after the restart")
        // Without AOF the restarted server is empty.
        #expect(try eager.command("GET", "k") == .bulk(nil))
    }

    @Test func aRestartIsNoticedOnIdleConnectionsBeforeTheyCarryACommand() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 3)
        defer { client.close() }
        // Three connections open at once, then idle in the pool.
        try DispatchQueue.concurrentPerformThrowing(iterations: 3) { _ in _ = try client.command("DEBUG", "SLEEP", "0.2") }
        try redis.restart()
        // Every idle connection is dead; none of them fails a call.
        for index in 0..<6 { #expect(try client.command("ECHO", "\(index)").string == "\(index)") }
    }

    @Test func manyThreadsEachGetTheirOwnReply() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 4)
        defer { client.close() }
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: 32) { thread in
            for request in 0..<50 {
                let token = "t\(thread)-r\(request)-" + String(repeating: "x", count: request * 37)
                do {
                    if try client.command("ECHO", token).string != token { mismatches.increment() }
                    if try client.command("INCR", "count:\(thread)") != .integer(Int64(request + 1)) { mismatches.increment() }
                } catch {
                    mismatches.increment()
                }
            }
        }
        #expect(mismatches.count == 0)
        #expect(try redis.redisCLI("GET", "count:31") == "50")
        #expect(client.connectAttempts <= 4)
    }

    @Test func aReplyTooSlowIsATimeoutAndItsConnectionIsNotReused() throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        let client = RedisClient(url: redis.url, poolSize: 1, timeout: 1)
        defer { client.close() }
        #expect(throws: RedisError(.timeout, "")) { try client.command("DEBUG", "SLEEP", "3") }
        // Once the server is free again (a bounded poll through redis-cli)...
        #expect(eventually(timeout: Self.recoveryBound) { (try? redis.redisCLI("PING")) == "PONG" })
        // The late reply to DEBUG SLEEP must not be read as the answer to this command.
        #expect(try client.command("ECHO", "next") == .bulk(Array("next".utf8)))
        #expect(client.connectAttempts == 2)
    }
}

extension DispatchQueue {
    static func concurrentPerformThrowing(iterations: Int, _ body: @Sendable (Int) throws -> Void) throws {
        let failures = Counter()
        concurrentPerform(iterations: iterations) { index in
            do { try body(index) } catch { failures.increment() }
        }
        guard failures.count == 0 else { throw RedisError(.server, "\(failures.count) iterations failed") }
    }
}
