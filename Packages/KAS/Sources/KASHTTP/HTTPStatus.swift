/// An HTTP status code. libmicrohttpd writes the reason phrase itself.
public struct HTTPStatus: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let code: Int
    public init(code: Int) { self.code = code }
    public init(integerLiteral value: Int) { self.code = value }

    public static let ok: HTTPStatus = 200
    public static let created: HTTPStatus = 201
    public static let accepted: HTTPStatus = 202
    public static let noContent: HTTPStatus = 204
    public static let badRequest: HTTPStatus = 400
    public static let unauthorized: HTTPStatus = 401
    public static let forbidden: HTTPStatus = 403
    public static let notFound: HTTPStatus = 404
    public static let methodNotAllowed: HTTPStatus = 405
    public static let conflict: HTTPStatus = 409
    public static let gone: HTTPStatus = 410
    public static let payloadTooLarge: HTTPStatus = 413
    public static let unsupportedMediaType: HTTPStatus = 415
    public static let unprocessableContent: HTTPStatus = 422
    public static let tooManyRequests: HTTPStatus = 429
    public static let internalServerError: HTTPStatus = 500
    public static let notImplemented: HTTPStatus = 501
    public static let badGateway: HTTPStatus = 502
    public static let serviceUnavailable: HTTPStatus = 503
    public static let gatewayTimeout: HTTPStatus = 504

    public var isSuccess: Bool { (200..<300).contains(code) }
    public var description: String { String(code) }
}
