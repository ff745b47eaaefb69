import Foundation
import KASRedis

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

    /// `HGETALL` as a dictionary; empty when the key is absent.
    static func hash(_ client: RedisClient, _ key: String) throws(StoreError) -> [String: String] {
        try command(client, ["HGETALL", key]).hashFields
    }
}

extension RESPValue {
    /// An `HGETALL` reply (name, value, …) as a dictionary; empty for an empty or nil array.
    /// Names or values that are not UTF-8 are left out (the stores write only text).
    var hashFields: [String: String] {
        let items = array ?? []
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let name = items[index].string, let value = items[index + 1].string { fields[name] = value }
            index += 2
        }
        return fields
    }
}
