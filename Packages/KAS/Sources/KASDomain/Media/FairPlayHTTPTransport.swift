import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `FairPlaySDKModule` transport to a service wrapping the FairPlay Streaming Server SDK: the
/// request document POSTed to the one configured URL, the response document as a 200 body.
///
/// Why URLSession here although docs/architecture.md keeps it away from key traffic: this is the KAS
/// calling its operator's own SDK service, not players fetching keys, and the KAS package has no
/// libcurl; a hand-written HTTP/1.1 client would have no TLS, so it could only serve loopback,
/// while the configuration allows https to another host. What that section warns about is handled: a
/// session-level delegate (a per-task one is ignored on Linux) refuses every redirect, so only
/// the configured URL is ever sent the request, and an answer from any other URL is refused.
/// The session is ephemeral: no cookies, cache or credential store. Trust is the system CA store
/// (URLSession on Linux cannot take a private CA per session): serve the SDK service with a
/// certificate the system trusts, or on loopback. Bodies are never logged.
package final class FairPlayHTTPTransport: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init and URLSession is thread-safe.
    public let url: URL
    public let timeoutSeconds: Int
    public let maxResponseBytes: Int
    private let session: URLSession

    public static let timedOut = FairPlayError(.unavailable, "the FairPlay SDK service timed out")
    public static let unreachable = FairPlayError(.unavailable, "the FairPlay SDK service cannot be reached")
    public static let badStatus = FairPlayError(.unavailable, "the FairPlay SDK service answered a non-200 status")
    public static let tooLarge = FairPlayError(.malformedResponse, "the FairPlay SDK service's response is too large")

    public init(url: URL, timeoutSeconds: Int = 10, maxResponseBytes: Int = 1 << 20) {
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        self.maxResponseBytes = maxResponseBytes
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(timeoutSeconds)
        configuration.timeoutIntervalForResource = TimeInterval(timeoutSeconds)
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    public func send(_ request: Data) throws(FairPlayError) -> Data {
        var post = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData,
                              timeoutInterval: TimeInterval(timeoutSeconds))
        post.httpMethod = "POST"
        post.httpBody = request
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.setValue("application/json", forHTTPHeaderField: "Accept")
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: post) { data, response, error in
            box.set(data: data, response: response, error: error)
            done.signal()
        }
        task.resume()
        // URLSession enforces the timeout itself; this bound only guards against it not firing.
        if done.wait(timeout: .now() + .seconds(timeoutSeconds + 5)) == .timedOut {
            task.cancel()
            throw Self.timedOut
        }
        let (data, response, error) = box.get()
        if let error {
            throw (error as? URLError)?.code == .timedOut ? Self.timedOut : Self.unreachable
        }
        guard let http = response as? HTTPURLResponse, http.statusCode == 200,
              http.url.map({ $0.absoluteString == url.absoluteString }) ?? true
        else { throw Self.badStatus }
        let body = data ?? Data()
        guard body.count <= maxResponseBytes else { throw Self.tooLarge }
        return body
    }
}

/// Refuses every redirect: the SDK request goes to the configured URL or nowhere.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// One task's completion, handed from URLSession's queue to the waiting caller.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: URLResponse?
    private var error: (any Error)?

    func set(data: Data?, response: URLResponse?, error: (any Error)?) {
        lock.lock(); defer { lock.unlock() }
        self.data = data
        self.response = response
        self.error = error
    }

    func get() -> (Data?, URLResponse?, (any Error)?) {
        lock.lock(); defer { lock.unlock() }
        return (data, response, error)
    }
}
