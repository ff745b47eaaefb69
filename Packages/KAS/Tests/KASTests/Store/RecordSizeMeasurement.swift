import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// The record sizes of docs/kas.md's capacity plan, measured rather than guessed: 20,000 ended
/// sessions and 20,000 released playbacks, each of another viewer (every viewer also costs its
/// own index keys: the worst case), written through the stores `kas serve` opens. SQLite: the
/// growth of `media.sqlite` once checkpointed; Redis: the growth of `INFO memory` `used_memory`,
/// and `MEMORY USAGE` of one record's hash. Not part of `make test` (it takes a minute):
///
///     KAS_MEASURE_RECORDS=1 swift test --package-path Packages/KAS --filter RecordSizeMeasurement
@Suite struct RecordSizeMeasurement {
    static let count = 20_000
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let asset = "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11"

    /// A viewer as a typical bearer token makes it (issuer, audience, times, one entitlement).
    func identity(_ index: Int) -> Identity {
        let subject = "viewer-\(index)@example.com", entitlement = "https://example.com/attr/tier/value/premium"
        return Identity(subject: subject, issuer: "https://idp.example.com", entitlements: [entitlement], rentals: [:],
                        claims: JSONObject([("sub", .string(subject)), ("iss", .string("https://idp.example.com")),
                                            ("aud", .string("urn:mediadrm:kas")), ("iat", .number(JSONNumber(1_800_000_000))),
                                            ("nbf", .number(JSONNumber(1_800_000_000))), ("exp", .number(JSONNumber(1_800_003_600))),
                                            ("entitlements", .array([.string(entitlement)]))]),
                        expiresAt: Date(timeIntervalSince1970: 1_800_003_600))
    }

    /// Starts and ends one session of viewer `index`, as a player's start and end do.
    func endedSession(_ index: Int, in stores: KASStateStores) throws {
        let viewer = identity(index).storeKey, id = MediaSessionID.hash("session-\(index)")
        _ = try stores.media.startSession(
            NewMediaSession(idHash: id, viewer: viewer, asset: asset, component: "video", protocol: .tdf,
                            playback: MediaSessionID.playbackKey(clientPlaybackID: "playback-\(index)"), timeout: 180),
            limit: nil, maxLiveSessionsPerViewer: 32, now: t0)
        _ = try stores.media.endSession(idHash: id, viewer: viewer, now: t0)
    }

    /// Starts and releases one playback of viewer `index`; its id.
    @discardableResult
    func releasedPlayback(_ index: Int, in stores: KASStateStores) throws -> String {
        let playback = PlaybackRecord(id: Base64URL.encode(try SecureRandom.bytes(count: 16)), identity: identity(index),
                                      assetID: asset, drmSystem: .tdf, expires: t0.addingTimeInterval(1800))
        _ = try stores.playbacks.insert(playback, maxLivePerViewer: 16, now: t0)
        _ = try stores.playbacks.release(playback.id, viewer: playback.identity.storeKey, now: t0)
        return playback.id
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["KAS_MEASURE_RECORDS"] != nil))
    func measure() throws {
        var report = "record sizes, \(Self.count) records of as many viewers each\n"
        for (kind, write) in [("session", endedSession), ("playback", { try self.releasedPlayback($0, in: $1) })]
            as [(String, (Int, KASStateStores) throws -> Void)] {
            let directory = try TemporaryDirectory("kas-measure")
            let layout = KASDataDirectory(directory.path)
            try KASStateStores.openSQLite(layout).close()
            let empty = try Self.size(layout.mediaStore)
            let stores = try KASStateStores.openSQLite(layout)
            for index in 0..<Self.count { try write(index, stores) }
            stores.close()
            report += "SQLite \(kind): \((try Self.size(layout.mediaStore) - empty) / Self.count) bytes each\n"
        }
        let redis = try TestRedis()
        defer { redis.stop() }
        let stores = try KASStateStores.openRedis(redis.url, poolSize: 1, timeout: 5)
        defer { stores.close() }
        func used() throws -> Int {
            Int(try redis.redisCLI("INFO", "memory").split(separator: "\r\n")
                .first { $0.hasPrefix("used_memory:") }?.dropFirst("used_memory:".count) ?? "") ?? 0
        }
        // The scripts are loaded before the first figure, so it counts records only.
        try endedSession(-1, in: stores)
        try releasedPlayback(-1, in: stores)
        var before = try used()
        for index in 0..<Self.count { try endedSession(index, in: stores) }
        report += "Redis session: \((try used() - before) / Self.count) bytes each (used_memory); the hash alone "
            + (try redis.redisCLI("MEMORY", "USAGE", "kas:session:" + MediaSessionID.hash("session-0"))) + " (MEMORY USAGE)\n"
        before = try used()
        var last = ""
        for index in 0..<Self.count { last = try releasedPlayback(index, in: stores) }
        report += "Redis playback: \((try used() - before) / Self.count) bytes each (used_memory); the hash alone "
            + (try redis.redisCLI("MEMORY", "USAGE", "kas:playback:" + MediaSessionID.hash(last))) + " (MEMORY USAGE)\n"
        print(report, terminator: "")
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
