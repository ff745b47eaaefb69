import MediaDRMCrypto
import MediaDRMEncoding

/// A Lua script run with `RedisClient.evaluate`: its source and its SHA-1 (the name Redis's
/// script cache knows it by, for `EVALSHA`), computed once here.
package struct RedisScript: Sendable {
    public let source: String
    /// Lower-case hex SHA-1 of `source`, as `SCRIPT LOAD` answers.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        self.sha1 = Hex.encode(SHA1.hash(data: Array(source.utf8)))
    }
}
