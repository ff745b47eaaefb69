/// A failure of the Redis client, compared by code. Reasons name the store by its redacted URL
/// and the step that failed; they never hold the password, a key's value or a command's
/// arguments (which carry session ids and tokens).
package struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable {
        /// No connection could be made (refused, unresolvable, reset), or the client is in its
        /// reconnect backoff after such a failure.
        case unreachable
        /// Connecting, sending or the reply took longer than the client's timeout, or every
        /// pooled connection stayed busy that long.
        case timeout
        /// The server refused the credentials (`WRONGPASS`) or wants some (`NOAUTH`).
        case authentication
        /// The bytes from the server are not RESP2 within the reader's limits.
        case protocolViolation
        /// The server answered an error reply (`-ERR ...`, `-WRONGTYPE ...`, a script error).
        case server
        /// A `redis://` URL that cannot be used.
        case configuration
        /// The server's `maxmemory-policy` may evict keys (`checkServer()`).
        case evictionPolicy
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "redis error (\(code)): \(reason)" }

    public static func == (lhs: RedisError, rhs: RedisError) -> Bool { lhs.code == rhs.code }
}
