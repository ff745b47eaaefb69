import Dispatch
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
    private let queue: DispatchQueue

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(TransportError) {
        try configuration.validate()
        guard CurlGlobal.isInitialized else { throw TransportError(.internalError, "libcurl could not be initialised") }
        self.configuration = configuration
        pool = CurlHandlePool(maxIdle: configuration.maxIdleHandles)
        queue = DispatchQueue(label: "mediadrm.transport", qos: .userInitiated, attributes: .concurrent)
    }

    /// Runs the blocking transfer on the client's queue; cancelling the task aborts the transfer
    /// at libcurl's next progress callback (within about a second) with `cancelled`.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let flag = CancellationFlag()
        let transfer = CurlTransfer(configuration: configuration, pool: pool)
        let queue = self.queue
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                queue.async {
                    continuation.resume(returning: Result { () throws(TransportError) in
                        try transfer.run(request, cancellation: flag)
                    })
                }
            }
        } onCancel: {
            flag.cancel()
        }
        return try result.get()
    }

    /// The same transfer on the calling thread.
    public func sendSynchronously(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try CurlTransfer(configuration: configuration, pool: pool).run(request, cancellation: nil)
    }
}
