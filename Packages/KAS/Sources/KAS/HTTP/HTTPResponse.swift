import Foundation
import JSON

/// A complete response; the server adds Content-Length (libmicrohttpd owns that header).
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body written by `JSONWriter` with sorted keys, so equal values give equal bytes.
    public static func json(_ value: JSONValue, status: HTTPStatus = .ok,
                            headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: JSONWriter.write(value, options: [.sortedKeys]))
    }

    public static func text(_ text: String, status: HTTPStatus = .ok,
                            headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return HTTPResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    public static func bytes(_ body: some DataProtocol, contentType: String, status: HTTPStatus = .ok,
                             headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = contentType
        return HTTPResponse(status: status, headers: headers, body: Data(body))
    }
}
