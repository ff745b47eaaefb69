/// How many records of one kind (media sessions, playbacks) a state store keeps, so that
/// neither one viewer nor many can fill it (docs/kas.md "Capacity plan"). Both backends apply
/// the same rule in the step that adds a record (one SQLite transaction, one Lua script):
///
/// - A record has *ended* once it is ended, released or expired; until then it is live.
/// - Per viewer: when a viewer starts a record, that viewer's ended records beyond
///   `endedPerViewer` are dropped, the oldest first (by the time they ended, then by id).
/// - In all: a start finding `total` records drops the oldest ended records of any viewer to
///   make room. It never drops a live one: when every record is live the start is refused
///   (`storeFull`, 503 `store_full`), so no number of accounts can evict another viewer's
///   live session or playback.
///
/// The stores' own pruning (`MediaStore.prune`, `PlaybackStore.prune`) still deletes records
/// a day after they ended; these bounds only keep the store within its size meanwhile.
package struct RecordBounds: Sendable, Equatable {
    /// Ended records kept per viewer.
    package var endedPerViewer: Int
    /// Records kept in all, live or ended.
    package var total: Int

    /// Records one start drops at most to make room, so that a lowered bound is reached over
    /// several starts rather than in one long step that holds the store.
    static let dropBatch = 500

    package init(endedPerViewer: Int, total: Int) {
        self.endedPerViewer = max(1, endedPerViewer)
        self.total = max(1, total)
    }

    /// The media sessions' bounds of `settings` (`store.maxEndedRecordsPerViewer`, `store.maxSessions`).
    package static func sessions(_ settings: KASConfiguration.StoreSettings = .init()) -> RecordBounds {
        RecordBounds(endedPerViewer: settings.maxEndedRecordsPerViewer, total: settings.maxSessions)
    }

    /// The playbacks' bounds of `settings` (`store.maxEndedRecordsPerViewer`, `store.maxPlaybacks`).
    package static func playbacks(_ settings: KASConfiguration.StoreSettings = .init()) -> RecordBounds {
        RecordBounds(endedPerViewer: settings.maxEndedRecordsPerViewer, total: settings.maxPlaybacks)
    }
}
