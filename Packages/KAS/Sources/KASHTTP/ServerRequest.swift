import Foundation
import MediaDRMJSON

/// One `name[=value]` pair of the query string, percent-decoded.
public struct HTTPQueryItem: Sendable, Equatable {
    public var name: String
    public var value: String?
    public init(name: String, value: String?) { self.name = name; self.value = value }
}

/// A fully received request. Fields are `var` so middleware can hand a transformed request on
/// (for example a decompressed body).
public struct ServerRequest: Sendable {
    public var method: HTTPMethod
    /// The percent-decoded path without the query string.
    public var path: String
    /// Parsed for routes that take options from the URL (`algorithm`, `kid`). Credentials are
    /// never read from here: a URL ends up in proxy logs, browser history and Referer headers.
    public var queryItems: [HTTPQueryItem]
    public var headers: ServerHeaders
    public var body: [UInt8]
    /// The peer's numeric IP address (no port).
    public var remoteAddress: String

    public init(method: HTTPMethod, path: String, queryItems: [HTTPQueryItem] = [],
                headers: ServerHeaders = ServerHeaders(), body: [UInt8] = [], remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The value of the first query item with this name (nil when absent or valueless).
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body parsed as strict JSON. A parse failure is a 400 whose reason names the JSON error
    /// kind only, never the offending bytes.
    public func jsonBody(limits: JSONLimits = .default) throws(HTTPError) -> JSONValue {
        do {
            return try JSONParser.parse(body, limits: limits)
        } catch {
            throw HTTPError(.badRequest, reason: "malformed JSON body (\(error.code.rawValue))")
        }
    }
}
