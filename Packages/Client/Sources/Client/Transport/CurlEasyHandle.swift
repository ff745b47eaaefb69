import CCurl
import Foundation

/// libcurl's global state, initialised once before the first handle (curl_global_init is not
/// thread-safe; a Swift static is initialised exactly once).
enum CurlGlobal {
    static let isInitialized: Bool = mediadrm_curl_global_init() == CURLE_OK
}

/// One easy handle. Used by one transfer at a time; reset before it is reused.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer

    init?() {
        guard CurlGlobal.isInitialized, let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }
}

/// A few idle handles, so consecutive requests reuse connections and TLS sessions. A handle is
/// owned by exactly one transfer between `take` and `give`.
final class CurlHandlePool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [CurlEasyHandle] = []
    private let maxIdle: Int

    init(maxIdle: Int) { self.maxIdle = max(0, maxIdle) }

    func take() -> CurlEasyHandle? {
        lock.lock()
        let handle = idle.popLast()
        lock.unlock()
        return handle ?? CurlEasyHandle()
    }

    func give(_ handle: CurlEasyHandle) {
        // Options (URL, headers, callbacks pointing at the finished transfer) must not survive.
        curl_easy_reset(handle.raw)
        lock.lock()
        if idle.count < maxIdle { idle.append(handle) }
        lock.unlock()
    }
}
