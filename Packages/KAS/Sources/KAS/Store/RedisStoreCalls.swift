import Foundation

/// The Redis calls the catalog, offline-licence and playback stores share: each a `RedisClient`
/// call whose failure is `StoreError(.unavailable, …)` (`StoreError(_: RedisError)`), so every
/// route answers 503 `state store unavailable` when Redis cannot.
enum RedisStoreCalls {
    static func command(_ client: RedisClient, _ arguments: [String]) throws(StoreError) -> RESPValue {
        do {
            return try client.command(arguments)
        } catch {
            throw StoreError(error)
        }
    }

    static func evaluate(_ client: RedisClient, _ script: RedisScript, keys: [String],
                         arguments: [String]) throws(StoreError) -> RESPValue {
        do {
            return try client.evaluate(script, keys: keys, arguments: arguments)
        } catch {
            throw StoreError(error)
        }
    }

    /// `HGETALL` as a dictionary; empty when the key is absent. Fields or values that are not
    /// UTF-8 are left out (the stores write only text).
    static func hash(_ client: RedisClient, _ key: String) throws(StoreError) -> [String: String] {
        let items = try command(client, ["HGETALL", key]).array ?? []
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let field = items[index].string, let value = items[index + 1].string { fields[field] = value }
            index += 2
        }
        return fields
    }
}
