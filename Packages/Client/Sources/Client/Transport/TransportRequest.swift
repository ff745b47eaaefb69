import Foundation

/// The methods a `TransportRequest` can send (the client side; the KAS has its own `HTTPMethod`).
public enum TransportMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
}

/// One request. The URL is a string so that the only parser that ever sees it is libcurl's
/// (validation and transfer agree on the host by construction).
public struct TransportRequest: Sendable {
    public var method: TransportMethod
    public var url: String
    public var headers: TransportHeaders
    public var body: Data?
    /// Sent only as `Authorization: Bearer ...`. Omit it for public routes (the certificate).
    public var credential: Credential?
    /// Overrides the client's total timeout for this request.
    public var timeout: Duration?
    /// Overrides the client's response body limit for this request.
    public var maxResponseBytes: Int?
    /// Statuses outside 2xx returned as a response instead of thrown (3xx never qualifies).
    public var extraAcceptedStatuses: Set<Int>
    /// Where a 2xx answer's body goes as it arrives; nil keeps it in `TransportResponse.body`.
    public var bodySink: (any ResponseBodySink)?

    public init(method: TransportMethod = .get, url: String, headers: TransportHeaders = TransportHeaders(), body: Data? = nil,
                credential: Credential? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil,
                extraAcceptedStatuses: Set<Int> = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.credential = credential
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.extraAcceptedStatuses = extraAcceptedStatuses
    }
}

public struct TransportResponse: Sendable {
    public let status: Int
    public let headers: TransportHeaders
    public let body: Data

    public init(status: Int, headers: TransportHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
