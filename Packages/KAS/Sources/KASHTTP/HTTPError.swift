import MediaDRMJSON

/// An error a handler throws to answer with a status and a fixed reason. Rendered as
/// `{"error": reason}`, plus `"reason": code` when the refusal has a stable code the caller may
/// learn (a viewer's own rights, docs/protocol.md). Both are written by the server's code and
/// never contain request data, so an error body cannot reflect what a client sent (or leak a
/// token it sent).
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPStatus
    public let reason: String
    /// The stable refusal code sent as the body's `reason` member; nil sends none.
    public let code: String?
    /// Extra response headers, such as `Allow` on a 405 or `Retry-After` on a 429.
    public var headers: ServerHeaders

    public init(_ status: HTTPStatus, reason: String, code: String? = nil, headers: ServerHeaders = ServerHeaders()) {
        self.status = status
        self.reason = reason
        self.code = code
        self.headers = headers
    }

    public var response: ServerResponse {
        var members: [(String, JSONValue)] = [("error", .string(reason))]
        if let code { members.append(("reason", .string(code))) }
        return .json(.object(JSONObject(members)), status: status, headers: headers)
    }

    public var description: String { "HTTP \(status.code): \(reason)" + (code.map { " (\($0))" } ?? "") }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.code == rhs.code
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
