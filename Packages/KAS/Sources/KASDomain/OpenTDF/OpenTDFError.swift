// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMProtobuf

/// Every failure of the OpenTDF routes and the rewrap logic. Compared by `code`; `reason` is a
/// fixed sentence safe to send to the client (never a key, a wrapped key, a token or a claim).
package struct OpenTDFError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The body, a field or the signed request token's contents are malformed.
        case malformedRequest
        /// A gzip body does not inflate, or inflates past the limit.
        case badCompression
        /// Content-Type or Content-Encoding this endpoint does not speak.
        case unsupportedMediaType
        /// A body or a count is above the configured limit.
        case tooLarge
        /// No (valid) bearer token, or the signed request token is expired, not yet valid or
        /// does not verify with the presented DPoP key.
        case unauthenticated
        /// The policy decision refused the request.
        case permissionDenied
        /// No key for the requested algorithm or kid.
        case notFound
        /// A failure on the server side (random generator, key export).
        case internalFailure
        /// The viewer sent more rewrap requests than `limits.rewrapRequestsPerMinute`.
        case rateLimited
    }

    public let code: Code
    public let reason: String
    /// Whole seconds until a rate-limited request may be retried (`Retry-After`).
    public var retryAfter: Int?

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "OpenTDF error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: OpenTDFError, rhs: OpenTDFError) -> Bool { lhs.code == rhs.code }

    /// The Connect error code for this failure.
    public var connectCode: ConnectCode {
        switch code {
        case .malformedRequest, .badCompression, .unsupportedMediaType: .invalidArgument
        case .tooLarge, .rateLimited: .resourceExhausted
        case .unauthenticated: .unauthenticated
        case .permissionDenied: .permissionDenied
        case .notFound: .notFound
        case .internalFailure: .internal
        }
    }

    /// The HTTP status of the REST routes (fps-v2 §10.5 and docs/protocol.md: 400 malformed, 401, 403, 404, 413, 5xx).
    public var httpStatus: Int {
        switch code {
        case .malformedRequest, .badCompression: 400
        case .unsupportedMediaType: 415
        case .tooLarge: 413
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .internalFailure: 500
        case .rateLimited: 429
        }
    }

    package init(_ error: ProtobufError) {
        self.init(.malformedRequest, "the protobuf body is malformed (\(error.code.rawValue))")
    }
}
