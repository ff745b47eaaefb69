/// Where a remote source is read from when its URL can expire mid-way (a signed media URL,
/// docs/delivery.md): the reader asks for the current URL before every request and, when the
/// origin answers 403, for a fresher one once, then retries that request with it. Readers built
/// on a plain URL use `FixedURL`.
public protocol RenewableURL: Sendable {
    /// The URL to use for the next request; may renew first when the current one is about to
    /// expire.
    func currentURL() -> String
    /// A fresher URL after `refused` was answered 403, or nil when there is none (the 403 then
    /// stands). Concurrent readers that saw the same refusal get the same fresh URL.
    func renew(after refused: String) -> String?
}

/// A URL that never changes: a 403 is final.
public struct FixedURL: RenewableURL {
    public let url: String

    public init(_ url: String) { self.url = url }

    public func currentURL() -> String { url }
    public func renew(after refused: String) -> String? { nil }
}

extension HTTPClient {
    /// Sends the request `make` builds for the location's current URL; after a 403, once more
    /// with the renewed URL when the location has one.
    func sendSynchronously(to location: any RenewableURL,
                           _ make: (String) -> TransportRequest) throws(TransportError) -> TransportResponse {
        let url = location.currentURL()
        do {
            return try sendSynchronously(make(url))
        } catch {
            guard error.code == .httpStatus, error.status == 403, let fresh = location.renew(after: url) else { throw error }
            return try sendSynchronously(make(fresh))
        }
    }
}
