/// Every failure of the transport. Compared by `code`. `reason` is a fixed sentence chosen by this
/// module: it never quotes the server (bodies, status text, header values), never contains the
/// request URL's query (which may carry a signed URL's secrets; an error status names the path
/// only) and never contains the credential.
public struct TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The URL could not be parsed, carries user information, or uses a scheme other than http(s).
        case invalidURL
        /// Plain http:// to a host that is not loopback. Refused before any connection.
        case insecureURL
        /// A header name or value, the method/body combination, or a limit is not acceptable.
        case invalidRequest
        /// The client configuration (CA bundle, pin, timeouts, limits) is not acceptable.
        case invalidConfiguration
        /// The server answered 3xx. Redirects are never followed.
        case redirectRefused
        /// The server answered a status outside 2xx (and outside the request's extra accepted ones).
        case httpStatus
        /// The response (body or headers) was larger than the limit; the transfer was aborted.
        case responseTooLarge
        /// The connect or total timeout elapsed.
        case timedOut
        /// The host could not be resolved or the connection could not be made.
        case connectionFailed
        /// The TLS handshake or certificate verification failed.
        case tlsFailure
        /// The server's public key does not match the configured pin.
        case pinMismatch
        /// The calling task was cancelled.
        case cancelled
        /// Any other transfer failure (protocol violation, connection reset, short body).
        case protocolError
        /// A Range response is missing, malformed, or does not answer the range that was asked.
        case invalidRange
        /// The resource changed between two range requests (size or entity tag).
        case resourceChanged
        /// The request's `ResponseBodySink` refused the answer or its bytes (it knows why).
        case sinkRefused
        /// libcurl could not be initialised or refused an option that should be accepted.
        case internalError
    }

    public let code: Code
    public let reason: String
    /// The HTTP status, when the failure is tied to one (`httpStatus`, `redirectRefused`).
    public let status: Int?
    /// Seconds from a numeric `Retry-After` header of a 429 or 503 answer (capped at a day).
    public let retryAfterSeconds: Int?
    /// The libcurl result code of the failed transfer, for diagnostics.
    public let curlCode: Int?

    public init(_ code: Code, _ reason: String, status: Int? = nil, retryAfterSeconds: Int? = nil, curlCode: Int? = nil) {
        self.code = code
        self.reason = reason
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
        self.curlCode = curlCode
    }

    public var description: String {
        var text = "transport error (\(code.rawValue)): \(reason)"
        if let status { text += " [HTTP \(status)]" }
        if let curlCode { text += " [curl \(curlCode)]" }
        return text
    }

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }
}
