import Foundation
import KASRedis

extension KASConfiguration {
    /// Where the KAS keeps its state (docs/kas.md): nil `url` keeps it in SQLite files in the
    /// data directory, the default with nothing to configure; a `redis://` URL shares it between
    /// KAS nodes through one Redis. The file's `store` section:
    ///
    /// ```json
    /// "store": {"url": "redis://kas:secret@10.0.0.5:6379/0", "poolSize": 16, "timeoutSeconds": 2,
    ///           "maxEndedRecordsPerViewer": 64, "maxSessions": 1000000, "maxPlaybacks": 500000}
    /// ```
    ///
    /// The three bounds hold in SQLite and in Redis alike (`RecordBounds`, docs/kas.md "Capacity
    /// plan"): one viewer's ended records cannot fill the store, and a full store refuses new
    /// starts rather than dropping anyone's live session or playback.
    ///
    /// The password may instead (and better) come from `KAS_STORE_PASSWORD`, which overrides the
    /// URL's. `--print-config`, logs and errors show the URL with the password masked.
    public struct StoreSettings: Sendable, Equatable {
        /// The Redis store; nil: SQLite in the data directory.
        package var url: RedisURL?
        /// Connections to Redis; nil: one per HTTP worker thread (each runs one request at a time).
        public var poolSize: Int?
        /// Bound on connecting to Redis and on each command's reply.
        public var timeoutSeconds: Int = StoreSettings.defaultTimeoutSeconds
        /// Ended (or expired) sessions, and apart ended playbacks, kept per viewer; beyond it the
        /// viewer's oldest go at their next start.
        public var maxEndedRecordsPerViewer: Int = 64
        /// Media sessions kept in all, live or ended. At the bound a start drops the oldest ended
        /// ones, and is refused (503 `store_full`) when every one is live.
        public var maxSessions: Int = 1_000_000
        /// Playbacks kept in all, as `maxSessions` for sessions.
        public var maxPlaybacks: Int = 500_000

        public static let defaultTimeoutSeconds = 2
        static let poolSizeRange = 1...1024
        static let timeoutRange = 1...60
        static let recordBoundRange = 1...1_000_000_000

        public init() {}
    }

    /// This node's name in the audit log (`node`), so records from several KAS nodes sharing a
    /// store can be told apart: the host name unless configured.
    public static var defaultNode: String { ProcessInfo.processInfo.hostName }
}

extension ConfigValue {
    /// A `redis://` store URL; the reason names the source and the part at fault, never the password.
    static func storeURL(_ text: String, _ source: String) throws(KASConfigurationError) -> RedisURL {
        do {
            return try RedisURL(text)
        } catch {
            throw KASConfigurationError(.invalidValue, "\(source): \(error.reason)")
        }
    }

    /// A node name for the audit log: printable ASCII without spaces, at most 64 bytes.
    static func node(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw invalid(source, "a node name of 1 to 64 printable ASCII characters without spaces")
        }
        return text
    }
}
