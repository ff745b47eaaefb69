import Foundation

/// What a media store holds that outlives a request, as plain records: the unit `kas store
/// migrate` copies from the SQLite store into Redis (`SQLiteMediaStore.exportRecords`,
/// `RedisMediaStore.importRecords`). Rate buckets are not part of it: they refill within a
/// minute, and an empty bucket is the same as a full one.
public struct MediaStoreRecords: Sendable, Equatable {
    /// Every stored session, live or not, in insertion order.
    public var sessions: [MediaSessionRecord]
    public var firstPlays: [FirstPlayRecord]
    public var streamLimits: [AssetStreamLimitRecord]

    public init(sessions: [MediaSessionRecord] = [], firstPlays: [FirstPlayRecord] = [],
                streamLimits: [AssetStreamLimitRecord] = []) {
        self.sessions = sessions
        self.firstPlays = firstPlays
        self.streamLimits = streamLimits
    }
}

/// When the first key of `asset` was delivered to `viewer` (`Identity.storeKey`).
public struct FirstPlayRecord: Sendable, Equatable {
    public var viewer: String
    public var asset: String
    public var time: Date

    public init(viewer: String, asset: String, time: Date) {
        self.viewer = viewer
        self.asset = asset
        self.time = time
    }
}

/// The stream limit an asset's verified policy declared (nil: none), as last seen at `updated`.
public struct AssetStreamLimitRecord: Sendable, Equatable {
    public var asset: String
    public var limit: Int?
    public var updated: Date

    public init(asset: String, limit: Int?, updated: Date) {
        self.asset = asset
        self.limit = limit
        self.updated = updated
    }
}
