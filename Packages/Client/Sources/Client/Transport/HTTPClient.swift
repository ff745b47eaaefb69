import Foundation

/// HTTP(S) over libcurl for key and media traffic.
///
/// Every request: plain http only to loopback (checked before any connection); redirects never
/// followed (a 3xx fails with `redirectRefused` as soon as its headers arrive, so nothing, least
/// of all the credential, is re-sent); environment proxies and .netrc ignored; only http/https;
/// connect and total timeouts; the body limit enforced while receiving; statuses outside 2xx
/// thrown as `httpStatus` with the body discarded. Safe to share between threads and tasks: each
/// transfer has its own easy handle.
public final class HTTPClient: Sendable {
    public let configuration: HTTPClientConfiguration
    private let pool: CurlHandlePool
    let transfers = TransferCounter()

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(TransportError) {
        try configuration.validate()
        guard CurlGlobal.isInitialized else { throw TransportError(.internalError, "libcurl could not be initialised") }
        self.configuration = configuration
        pool = CurlHandlePool(maxIdle: configuration.maxIdleHandles)
    }

    /// Runs the blocking transfer on a thread of its own (never on the cooperative pool or a
    /// width-limited dispatch queue, which slow transfers would starve). Cancelling the task ends
    /// the call with `cancelled` whenever the cancellation arrives: before the call (no thread,
    /// no connection), during the transfer (aborted at libcurl's next callback, the connection
    /// closed), or after it (the answer is dropped).
    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let transfer = CurlTransfer(configuration: configuration, pool: pool, counter: transfers)
        return try await ThreadBridge.run(name: "mediadrm.transport", cancelled: { TransportError.cancelledRequest }) {
            Result { () throws(TransportError) in try transfer.run(request) }
        }.get()
    }

    /// Requests that passed validation and reached libcurl.
    var transfersStarted: Int { transfers.value }

    /// Blocks the calling thread. Inside blocking work run by the playback (`Blocking.run`),
    /// cancelling the awaiting task cancels this transfer as well.
    public func sendSynchronously(_ request: TransportRequest) throws(TransportError) -> TransportResponse {
        try CurlTransfer(configuration: configuration, pool: pool, counter: transfers).run(request)
    }
}
