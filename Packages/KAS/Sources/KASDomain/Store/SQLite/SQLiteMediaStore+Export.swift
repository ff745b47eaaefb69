import Foundation

extension SQLiteMediaStore {
    /// Everything the store holds but rate buckets, for `kas store migrate` to copy into Redis
    /// (`RedisMediaStore.importRecords`): sessions in insertion order (so playback ranks keep
    /// their ties), first plays, and stream limits. Read in one transaction, so it is one
    /// consistent snapshot even while a server writes.
    public func exportRecords() throws(StoreError) -> MediaStoreRecords {
        try locked { () throws(StoreError) -> MediaStoreRecords in
            try database.transaction { () throws(StoreError) -> MediaStoreRecords in
                var records = MediaStoreRecords()
                for row in try database.query("SELECT id_hash FROM media_sessions ORDER BY rowid") {
                    guard case .text(let id)? = row.first, let session = try readSession(id) else {
                        throw StoreError(.step, "a stored session is unreadable")
                    }
                    records.sessions.append(session)
                }
                for row in try database.query("SELECT viewer, asset, first_key_ms FROM media_first_plays ORDER BY rowid") {
                    guard row.count == 3, case .text(let viewer) = row[0], case .text(let asset) = row[1],
                          case .integer(let ms) = row[2]
                    else { throw StoreError(.step, "a stored first-play record is unreadable") }
                    records.firstPlays.append(FirstPlayRecord(viewer: viewer, asset: asset, time: Self.date(ms)))
                }
                for row in try database.query("SELECT asset, max_streams, updated_ms FROM media_asset_limits ORDER BY asset") {
                    guard row.count == 3, case .text(let asset) = row[0], case .integer(let updated) = row[2] else {
                        throw StoreError(.step, "a stored stream limit is unreadable")
                    }
                    var limit: Int?
                    if case .integer(let value) = row[1] { limit = Int(value) }
                    records.streamLimits.append(AssetStreamLimitRecord(asset: asset, limit: limit, updated: Self.date(updated)))
                }
                return records
            }
        }
    }
}
