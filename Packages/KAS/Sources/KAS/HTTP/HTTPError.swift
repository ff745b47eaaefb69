import MediaDRMJSON

/// An error a handler throws to answer with a status and a fixed reason. Rendered as
/// `{"error": reason}`. The reason is written by the server's code and never contains request
/// data, so an error body cannot reflect what a client sent (or leak a token it sent).
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPStatus
    public let reason: String
    /// Extra response headers, such as `Allow` on a 405 or `Retry-After` on a 429.
    public var headers: ServerHeaders

    public init(_ status: HTTPStatus, reason: String, headers: ServerHeaders = ServerHeaders()) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    public var response: ServerResponse {
        .json(.object(JSONObject([("error", .string(reason))])), status: status, headers: headers)
    }

    public var description: String { "HTTP \(status.code): \(reason)" }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason
    }

    public static let badRequest = HTTPError(.badRequest, reason: "bad request")
    public static let unauthorized = HTTPError(.unauthorized, reason: "unauthorized")
    public static let forbidden = HTTPError(.forbidden, reason: "forbidden")
    public static let notFound = HTTPError(.notFound, reason: "not found")
    public static let payloadTooLarge = HTTPError(.payloadTooLarge, reason: "request body too large")
    public static let internalError = HTTPError(.internalServerError, reason: "internal error")
    public static let serviceUnavailable = HTTPError(.serviceUnavailable, reason: "service unavailable")

    /// 405 with the `Allow` header listing the methods the path does accept.
    public static func methodNotAllowed(allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(.methodNotAllowed, reason: "method not allowed",
                  headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
    }
}
