import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJSON

/// Which backend a state-store test runs against: the single node's (SQLite files in a data
/// directory) or a real `redis-server` on loopback.
enum StateBackend: String, CaseIterable, Sendable {
    case local, redis
}

/// The state stores of one backend for one test, opened as `kas serve` opens them
/// (`KASStateStores`): SQLite in a fresh data directory, or a fresh `redis-server` (`TestRedis`).
/// `stop()` closes them and removes what was made.
final class StateStoreFixture {
    private(set) var stores: KASStateStores
    let redis: TestRedis?
    /// The `store` settings the stores were opened with (their `RecordBounds`).
    let settings: KASConfiguration.StoreSettings
    private let directory: TemporaryDirectory

    init(_ backend: StateBackend, settings: KASConfiguration.StoreSettings = .init()) throws {
        directory = try TemporaryDirectory("kas-state")
        self.settings = settings
        switch backend {
        case .local:
            redis = nil
            stores = try KASStateStores.openSQLite(KASDataDirectory(directory.path), settings: settings)
        case .redis:
            let redis = try TestRedis()
            self.redis = redis
            do {
                stores = try KASStateStores.openRedis(redis.url, poolSize: 4, timeout: 5, settings: settings)
            } catch {
                redis.stop()
                throw error
            }
        }
    }

    /// The data directory of the local backend.
    var layout: KASDataDirectory { KASDataDirectory(directory.path) }

    /// A second set of stores on the same Redis, as a second node opens them.
    func secondNode() throws -> KASStateStores {
        guard let redis else { throw KASApplicationError("only a Redis is shared") }
        return try KASStateStores.openRedis(redis.url, poolSize: 4, timeout: 5, settings: settings)
    }

    /// Closes the stores and opens them again on the same data (a restarted node).
    func reopen() throws {
        stores.close()
        if let redis {
            stores = try KASStateStores.openRedis(redis.url, poolSize: 4, timeout: 5, settings: settings)
        } else {
            stores = try KASStateStores.openSQLite(layout, settings: settings)
        }
    }

    /// The SHA-256 of every stored playback's id, live or ended, read beside the stores (SQLite's
    /// table, Redis's two indexes): what the record bounds left.
    func storedPlaybacks() throws -> Set<String> {
        if let redis {
            let lines = try redis.redisCLI("ZRANGE", "kas:playbacks-live", "0", "-1") + "\n"
                + (try redis.redisCLI("ZRANGE", "kas:playbacks-released", "0", "-1"))
            return Set(lines.split(separator: "\n").map(String.init))
        }
        let database = try SQLiteDatabase(path: layout.mediaStore)
        defer { database.close() }
        return Set(try database.query("SELECT id_hash FROM playbacks").compactMap { row -> String? in
            if case .text(let id)? = row.first { return id }
            return nil
        })
    }

    func stop() {
        stores.close()
        redis?.stop()
    }

    /// Runs `body` with the fixture of `backend`, stopped whatever happens.
    static func with(_ backend: StateBackend, settings: KASConfiguration.StoreSettings = .init(),
                     _ body: (StateStoreFixture) throws -> Void) throws {
        let fixture = try StateStoreFixture(backend, settings: settings)
        defer { fixture.stop() }
        try body(fixture)
    }
}
