import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import Synchronization
import Testing

/// The media-store implementations the conformance suite (`MediaStoreConformanceTests`) runs
/// every assertion against.
enum MediaStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, redis

    var testDescription: String { rawValue }

    /// Opens a fresh, empty store of this kind and gives `body` it and a way to open another
    /// handle on the same data, as a second server process or node would have (SQLite: another
    /// connection to the file; Redis: another client of the suite's shared server, same prefix).
    /// Everything opened is closed or removed afterwards. `bounds`: the stores' `RecordBounds`.
    func withStores(bounds: RecordBounds = .sessions(),
                    _ body: (any MediaStore, _ another: () throws -> any MediaStore) throws -> Void) throws {
        switch self {
        case .sqlite:
            let directory = try MediaFixture.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("media.sqlite").path
            try body(try SQLiteMediaStore(path: path, bounds: bounds)) { try SQLiteMediaStore(path: path, bounds: bounds) }
        case .redis:
            let redis = try SharedTestRedis.current()
            let prefix = SharedTestRedis.prefix()
            let clients = Mutex<[RedisClient]>([])
            defer { clients.withLock { $0.forEach { $0.close() } } }
            func open() -> any MediaStore {
                let client = RedisClient(url: redis.url, poolSize: 4)
                clients.withLock { $0.append(client) }
                return RedisMediaStore(client: client, keyPrefix: prefix, bounds: bounds)
            }
            try body(open()) { open() }
        }
    }
}

extension NewMediaSession {
    /// A tdf session of viewer `v1` and asset `a1` by default, its playback named after its id.
    static func test(_ id: String, viewer: String = "v1", asset: String = "a1", playback: String? = nil,
                     timeout: TimeInterval = 180) -> NewMediaSession {
        NewMediaSession(idHash: id, viewer: viewer, asset: asset, protocol: .tdf, playback: playback ?? "p-\(id)",
                        timeout: timeout)
    }
}
