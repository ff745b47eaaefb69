import Foundation

/// The idle connections of a `RedisClient`, how many are open, and the reconnect backoff,
/// under one condition lock: a call waits on it when every connection is busy.
final class RedisConnectionPool: @unchecked Sendable {
    // Every stored property is read and written only with `condition` held.
    private let condition = NSCondition()
    private var idle: [RedisConnection] = []
    private var open = 0
    private var closed = false
    private var backoff: RedisReconnectBackoff
    private var attempts = 0

    init(backoff policy: RedisReconnectBackoff.Policy) {
        backoff = RedisReconnectBackoff(policy: policy)
    }

    var connectAttempts: Int { condition.withLock { attempts } }

    func checkOut(url: RedisURL, poolSize: Int, timeout: Duration) throws(RedisError) -> RedisConnection {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18)
        condition.lock()
        while true {
            guard !closed else {
                condition.unlock()
                throw RedisError(.unreachable, "the client of \(url.redacted) is closed")
            }
            if let connection = idle.popLast() {
                guard connection.isReusable else {
                    connection.close()
                    open -= 1
                    continue
                }
                condition.unlock()
                return connection
            }
            if open < poolSize {
                let now = ContinuousClock.now
                guard backoff.allowsAttempt(at: now) else {
                    let last = backoff.lastFailure?.reason ?? "\(url.redacted) is unreachable"
                    condition.unlock()
                    throw RedisError(.unreachable, "\(last) (not retrying yet: reconnect backoff)")
                }
                open += 1
                attempts += 1
                condition.unlock()
                do {
                    let connection = try RedisConnection.open(url, timeout: timeout)
                    condition.withLock { backoff.recordSuccess() }
                    return connection
                } catch {
                    condition.withLock {
                        open -= 1
                        backoff.recordFailure(error, at: ContinuousClock.now)
                        condition.signal()
                    }
                    throw error
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw RedisError(.timeout, "all \(poolSize) connections to \(url.redacted) stayed busy for the timeout")
            }
        }
    }

    func checkIn(_ connection: RedisConnection, reusable: Bool) {
        condition.withLock {
            if reusable && !closed {
                idle.append(connection)
            } else {
                connection.close()
                open -= 1
            }
            condition.signal()
        }
    }

    func close() {
        let connections: [RedisConnection] = condition.withLock {
            closed = true
            let all = idle
            open -= idle.count
            idle = []
            condition.broadcast()
            return all
        }
        for connection in connections { connection.close() }
    }
}
