import Foundation
import KASRedis

extension KASConfiguration {
    /// Where the KAS keeps its state (docs/kas.md): nil `url` keeps it in SQLite files in the
    /// data directory, the default with nothing to configure; a `redis://` URL shares it between
    /// KAS nodes through one Redis. The file's `store` section:
    ///
    /// ```json
    /// "store": {"url": "redis://kas:secret@10.0.0.5:6379/0", "poolSize": 16, "timeoutSeconds": 2}
    /// ```
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

        public static let defaultTimeoutSeconds = 2
        static let poolSizeRange = 1...1024
        static let timeoutRange = 1...60

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
