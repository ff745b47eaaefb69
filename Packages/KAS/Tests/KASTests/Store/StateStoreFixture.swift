import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON

/// Which backend a state-store test runs against: the single node's (SQLite files and the
/// in-memory playbacks) or a real `redis-server` on loopback.
enum StateBackend: String, CaseIterable, Sendable {
    case local, redis
}

/// The state stores of one backend for one test, opened as `kas serve` opens them
/// (`KASStateStores`): SQLite in a fresh data directory, or a fresh `redis-server` (`TestRedis`).
/// `stop()` closes them and removes what was made.
final class StateStoreFixture {
    let stores: KASStateStores
    let redis: TestRedis?
    private let directory: TemporaryDirectory

    init(_ backend: StateBackend) throws {
        directory = try TemporaryDirectory("kas-state")
        switch backend {
        case .local:
            redis = nil
            stores = try KASStateStores.openSQLite(KASDataDirectory(directory.path))
        case .redis:
            let redis = try TestRedis()
            self.redis = redis
            do {
                stores = try KASStateStores.openRedis(redis.url, poolSize: 4, timeout: 5)
            } catch {
                redis.stop()
                throw error
            }
        }
    }

    /// A second set of stores on the same Redis, as a second node opens them.
    func secondNode() throws -> KASStateStores {
        guard let redis else { throw KASApplicationError("only a Redis is shared") }
        return try KASStateStores.openRedis(redis.url, poolSize: 4, timeout: 5)
    }

    func stop() {
        stores.close()
        redis?.stop()
    }

    /// Runs `body` with the fixture of `backend`, stopped whatever happens.
    static func with(_ backend: StateBackend, _ body: (StateStoreFixture) throws -> Void) throws {
        let fixture = try StateStoreFixture(backend)
        defer { fixture.stop() }
        try body(fixture)
    }
}
