import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Testing

/// One real `redis-server` (`TestRedis`) around a whole suite: started before its first test,
/// stopped after its last. Tests reach it through `SharedTestRedis.server` and keep apart by
/// each using its own key prefix (`SharedTestRedis.prefix()`).
struct SharedTestRedis: SuiteTrait, TestScoping {
    @TaskLocal static var server: TestRedis?

    struct NotInScope: Error, CustomStringConvertible {
        var description: String { "the suite has no shared Redis: add the .sharedRedis trait to it" }
    }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let redis = try TestRedis()
        defer { redis.stop() }
        try await Self.$server.withValue(redis) { try await function() }
    }

    /// The suite's server; throws outside a suite with the trait.
    static func current() throws -> TestRedis {
        guard let server else { throw NotInScope() }
        return server
    }

    /// A key prefix no other test uses.
    static func prefix() -> String { "kas-test-\(UUID().uuidString.lowercased()):" }
}

extension Trait where Self == SharedTestRedis {
    /// Runs the suite with one shared `redis-server` (`SharedTestRedis`).
    static var sharedRedis: Self { SharedTestRedis() }
}

extension TestRedis {
    /// Every key with its value (`GET`, `HGETALL`, `SMEMBERS` or `ZRANGE`), as a copy of the
    /// server would show them, read with `redis-cli`.
    func dump() throws -> String {
        var text = ""
        for key in try redisCLI("--scan").split(separator: "\n").map(String.init) where !key.isEmpty {
            let type = try redisCLI("TYPE", key).trimmingCharacters(in: .whitespacesAndNewlines)
            let command: [String] = switch type {
            case "hash": ["HGETALL", key]
            case "set": ["SMEMBERS", key]
            case "zset": ["ZRANGE", key, "0", "-1", "WITHSCORES"]
            default: ["GET", key]
            }
            text += key + "\n" + (try redisCLI(command)) + "\n"
        }
        return text
    }
}
