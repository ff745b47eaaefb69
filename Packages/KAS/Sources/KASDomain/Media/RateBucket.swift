/// The rate-limit bucket both media stores keep per key (`MediaStore.consumeRateToken`): up to
/// `perMinute` tokens counted in millitokens, refilled continuously over a minute, one token
/// (1000) taken per request. The stores run the arithmetic where they can do it atomically (a
/// SQLite transaction, a Redis Lua script); its bounds are written once, here.
enum RateBucket {
    /// A bucket refills completely within this many milliseconds; one untouched for that long is
    /// full, the same as none, and may be deleted.
    static let refillMs: Int64 = 60_000

    /// Rate limits above this many per minute behave as this many, so `elapsed * capacity`
    /// stays below 2^53 (exact in Lua's doubles, far from Int64 overflow).
    static let maxPerMinute = 150_000_000

    /// The bucket's size in millitokens.
    static func capacity(perMinute: Int) -> Int64 { Int64(min(max(1, perMinute), maxPerMinute)) * 1000 }
}
