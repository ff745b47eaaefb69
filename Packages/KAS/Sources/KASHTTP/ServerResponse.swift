import Foundation
import MediaDRMJSON

/// A complete response; the server adds Content-Length (libmicrohttpd owns that header).
public struct ServerResponse: Sendable {
    public var status: HTTPStatus
    public var headers: ServerHeaders
    public var body: Data

    public init(status: HTTPStatus = .ok, headers: ServerHeaders = ServerHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body written by `JSONWriter` with sorted keys, so equal values give equal bytes.
    public static func json(_ value: JSONValue, status: HTTPStatus = .ok,
                            headers: ServerHeaders = ServerHeaders()) -> ServerResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return ServerResponse(status: status, headers: headers, body: JSONWriter.write(value, options: [.sortedKeys]))
    }

    public static func text(_ text: String, status: HTTPStatus = .ok,
                            headers: ServerHeaders = ServerHeaders()) -> ServerResponse {
        var headers = headers
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return ServerResponse(status: status, headers: headers, body: Data(text.utf8))
    }

    public static func bytes(_ body: some DataProtocol, contentType: String, status: HTTPStatus = .ok,
                             headers: ServerHeaders = ServerHeaders()) -> ServerResponse {
        var headers = headers
        headers["Content-Type"] = contentType
        return ServerResponse(status: status, headers: headers, body: Data(body))
    }
}
