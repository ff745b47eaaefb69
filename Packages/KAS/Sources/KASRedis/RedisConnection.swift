/// One authenticated connection: the socket, the reader of its replies, and the handshake
/// (`AUTH`, then `SELECT` for a database other than 0). Used by one thread at a time (the pool
/// hands it out); any failure other than an error reply leaves it unusable, since the reply
/// stream's position is then unknown, and the pool closes it.
final class RedisConnection {
    private let socket: RedisSocket
    private var reader = RESPReader()
    private let timeout: Duration

    private init(socket: RedisSocket, timeout: Duration) {
        self.socket = socket
        self.timeout = timeout
    }

    /// Connects, authenticates and selects the database, each step within `timeout`.
    static func open(_ url: RedisURL, timeout: Duration) throws(RedisError) -> RedisConnection {
        let socket = try RedisSocket.connect(host: url.host, port: url.port, timeout: timeout, label: url.redacted)
        let connection = RedisConnection(socket: socket, timeout: timeout)
        do throws(RedisError) {
            if let password = url.password {
                var arguments = ["AUTH"]
                if let user = url.user { arguments.append(user) }
                arguments.append(password)
                let reply = try connection.roundTrip(arguments.map { Array($0.utf8) })
                if case .error(let message) = reply {
                    throw RedisError(.authentication, RedisReply.authenticationReason(message, url: url))
                }
            }
            if url.database != 0 {
                let reply = try connection.roundTrip([Array("SELECT".utf8), Array(String(url.database).utf8)])
                if case .error(let message) = reply {
                    throw RedisReply.serverError(message, url: url, context: "selecting database \(url.database)")
                }
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Sends one command and reads its reply; an error reply is returned as `.error`, not thrown.
    func roundTrip(_ arguments: [[UInt8]]) throws(RedisError) -> RESPValue {
        let deadline = ContinuousClock.now + timeout
        try socket.send(RESPWriter.command(arguments), until: deadline)
        while true {
            if let reply = try reader.next() { return reply }
            try socket.receive(into: &reader, until: deadline)
        }
    }

    /// Whether it can carry another command: nothing left over from the last reply, and the
    /// peer has neither closed it nor sent anything since.
    var isReusable: Bool { reader.bufferedByteCount == 0 && !socket.isStale }

    func close() { socket.close() }
}

/// How error replies become `RedisError`s.
enum RedisReply {
    /// The reason for a refused `AUTH`: the store by its redacted URL, the server's error code
    /// (never the password, which Redis does not echo anyway) and what to check.
    static func authenticationReason(_ message: String, url: RedisURL) -> String {
        let code = errorCode(message)
        let who = url.user.map { "user '\($0)'" } ?? "the default user"
        return "\(url.redacted) refused the credentials of \(who) (\(code)): check the password in the store URL or KAS_STORE_PASSWORD"
    }

    /// An error reply as a thrown error: credentials problems as `.authentication`, the rest as
    /// `.server` with the server's message (capped), which names no argument of ours.
    static func serverError(_ message: String, url: RedisURL, context: String? = nil) -> RedisError {
        switch errorCode(message) {
        case "NOAUTH":
            return RedisError(.authentication, "\(url.redacted) requires authentication the KAS did not give (NOAUTH): "
                              + "set the password in the store URL or KAS_STORE_PASSWORD")
        case "WRONGPASS":
            return RedisError(.authentication, authenticationReason(message, url: url))
        default:
            break
        }
        let text = String(message.prefix(maximumMessageLength))
        return RedisError(.server, context.map { "\(text) (\($0) on \(url.redacted))" } ?? text)
    }

    /// The error reply's first word (`ERR`, `WRONGTYPE`, `NOSCRIPT`, ...), capped.
    private static func errorCode(_ message: String) -> String {
        String((message.split(separator: " ", maxSplits: 1).first ?? "ERR").prefix(32))
    }

    /// Longest server message kept in a reason.
    static let maximumMessageLength = 300
}
