import KASRedis

extension StoreError {
    /// Every failure of Redis as a store sees it: `.unavailable`, whose 503 `state store
    /// unavailable` never admits a playback the store could not count. The reason is the
    /// client's, which names the store by its redacted URL and holds no argument.
    package init(_ error: RedisError) {
        self.init(.unavailable, error.reason)
    }
}
