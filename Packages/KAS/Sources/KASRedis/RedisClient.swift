import Foundation

/// A pool of connections to one Redis (sized to the HTTP worker threads, each of which runs one
/// command at a time), each opened lazily, with connect/read/write timeouts, AUTH (user and
/// password, or password only) and SELECT on connect. A connection goes back to the pool only
/// after a complete reply; a timeout, a protocol violation or a broken socket closes it, and
/// the next call opens a new one. An idle connection the server closed meanwhile (a Redis
/// restart) is noticed before it is used, so a restart does not fail one request per pooled
/// connection. After a failed connect the client is in a reconnect backoff
/// (`RedisReconnectBackoff`): calls that need a new connection fail fast with `.unreachable`
/// until it has passed.
///
/// Commands are not retried: a command whose reply was lost may or may not have run, and only
/// the caller knows whether running it twice is harmless.
package final class RedisClient: Sendable {
    public let url: RedisURL
    /// Most connections open at once; a call finding all of them busy waits up to the timeout.
    public let poolSize: Int
    private let timeout: Duration
    private let pool: RedisConnectionPool

    public convenience init(url: RedisURL, poolSize: Int, timeout: TimeInterval = 2) {
        self.init(url: url, poolSize: poolSize, timeout: timeout, backoff: .standard)
    }

    init(url: RedisURL, poolSize: Int, timeout: TimeInterval, backoff: RedisReconnectBackoff.Policy) {
        self.url = url
        self.poolSize = max(1, poolSize)
        self.timeout = .milliseconds(Int64(max(0.001, timeout) * 1000))
        self.pool = RedisConnectionPool(backoff: backoff)
    }

    deinit { close() }

    /// Runs one command. An error reply throws `.server` (`.authentication` for `NOAUTH` /
    /// `WRONGPASS`) with the server's message.
    public func command(_ arguments: [String]) throws(RedisError) -> RESPValue {
        try command(binary: arguments.map { Array($0.utf8) })
    }

    public func command(_ arguments: String...) throws(RedisError) -> RESPValue {
        try command(arguments)
    }

    /// Runs one command whose arguments are bytes (binary-safe bulk strings).
    public func command(binary arguments: [[UInt8]]) throws(RedisError) -> RESPValue {
        let reply = try withConnection { connection throws(RedisError) in try connection.roundTrip(arguments) }
        if case .error(let message) = reply { throw RedisReply.serverError(message, url: url) }
        return reply
    }

    /// EVALSHA, falling back to EVAL on NOSCRIPT (after a Redis restart or `SCRIPT FLUSH` the
    /// script cache is empty; EVAL loads the script again).
    public func evaluate(_ script: RedisScript, keys: [String], arguments: [String]) throws(RedisError) -> RESPValue {
        let tail = [String(keys.count)] + keys + arguments
        do {
            return try command(["EVALSHA", script.sha1] + tail)
        } catch where error.code == .server && error.reason.hasPrefix("NOSCRIPT") {
            return try command(["EVAL", script.source] + tail)
        }
    }

    /// Start-up check: connects, authenticates, PINGs, and refuses a `maxmemory-policy` other
    /// than `noeviction` (read from `INFO memory`, which ACL users can run) with `.evictionPolicy`.
    public func checkServer() throws(RedisError) {
        let pong = try command("PING")
        guard pong == .simple("PONG") else {
            throw RedisError(.protocolViolation, "\(url.redacted) did not answer PING with PONG")
        }
        guard let info = try command("INFO", "memory").string else {
            throw RedisError(.protocolViolation, "\(url.redacted) answered INFO memory with something other than text")
        }
        let policy = info.split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("maxmemory_policy:") }
            .map { $0.dropFirst("maxmemory_policy:".count).trimmingCharacters(in: .whitespaces) }
        guard let policy else {
            throw RedisError(.evictionPolicy, "\(url.redacted) does not report its maxmemory_policy in INFO memory; "
                             + "the KAS needs a Redis that never evicts keys (maxmemory-policy noeviction)")
        }
        guard policy == "noeviction" else {
            throw RedisError(.evictionPolicy, "\(url.redacted) has maxmemory-policy '\(policy.prefix(40))', which may evict keys "
                             + "when memory runs out, silently dropping first-play records and session counts; "
                             + "set 'maxmemory-policy noeviction' in redis.conf (or CONFIG SET maxmemory-policy noeviction)")
        }
    }

    /// Closes every idle connection; connections in use are closed when their call ends. Later
    /// calls throw `.unreachable`.
    public func close() {
        pool.close()
    }

    /// Connect attempts made so far (successful or not): the tests' proof that the backoff
    /// spares an unreachable Redis the connects.
    package var connectAttempts: Int { pool.connectAttempts }

    /// Checks a connection out (reusing an idle one, else opening one if the pool has room and
    /// the backoff allows), runs `body`, and puts it back only if the reply was complete.
    private func withConnection<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
        let connection = try pool.checkOut(url: url, poolSize: poolSize, timeout: timeout)
        do {
            let result = try body(connection)
            pool.checkIn(connection, reusable: connection.isReusable)
            return result
        } catch {
            pool.checkIn(connection, reusable: false)
            throw error
        }
    }
}
