/// One RESP2 value (https://redis.io/docs/latest/develop/reference/protocol-spec/): what a
/// command answers. Bulk strings are bytes (binary-safe); a nil bulk or array is RESP2's null.
package enum RESPValue: Sendable, Equatable {
    /// `+OK`: a status line.
    case simple(String)
    /// `-ERR ...`: an error reply. `RedisClient.command` throws these as `.server`; it appears
    /// as a value only inside an array (a script's or a transaction's nested error).
    case error(String)
    /// `:42`.
    case integer(Int64)
    /// `$3 abc`, or nil for `$-1`.
    case bulk([UInt8]?)
    /// `*2 ...`, or nil for `*-1`.
    case array([RESPValue]?)

    /// A status line, or a bulk string that is valid UTF-8; nil otherwise.
    public var string: String? {
        switch self {
        case .simple(let text): return text
        case .bulk(let bytes?): return String(validating: bytes, as: UTF8.self)
        default: return nil
        }
    }

    /// An integer reply, or a bulk string holding a decimal integer (Lua numbers come back as
    /// integers, `GET` of a counter as a bulk string).
    public var int: Int64? {
        switch self {
        case .integer(let value): return value
        case .bulk(let bytes?): return String(validating: bytes, as: UTF8.self).flatMap { Int64($0) }
        default: return nil
        }
    }

    /// The elements of a non-nil array.
    public var array: [RESPValue]? {
        if case .array(let elements?) = self { return elements }
        return nil
    }

    /// Whether this is a nil bulk string or a nil array.
    public var isNil: Bool {
        switch self {
        case .bulk(nil), .array(nil): return true
        default: return false
        }
    }
}
