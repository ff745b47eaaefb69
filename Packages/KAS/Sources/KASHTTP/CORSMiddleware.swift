import Foundation

/// Cross-origin access to the KAS (Fetch standard, "CORS protocol"), router-wide so it covers the
/// player module, the media routes, the OpenTDF routes and any later route alike.
///
/// - A request with an `Origin` that is neither the KAS's own origin nor in
///   `cors.allowedOrigins` is refused 403 `{"error":"origin not allowed"}` before any route runs:
///   a page elsewhere cannot call the KAS, not even with a request the browser sends without a
///   preflight.
/// - A preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
///   answered 204 here, allowing the methods and the request headers the player sends
///   (`Authorization`, `Content-Type`): no route needs an OPTIONS handler.
/// - Other answers to an allowed origin name that origin exactly (never `*`) with
///   `Vary: Origin`. Credentials mode is not used: the token is a header, never a cookie.
public struct CORSMiddleware<Context: RequestContext>: HTTPMiddleware {
    let allowed: Set<String>

    /// `allowedOrigins`: serialised origins (`https://app.example`), compared exactly with the
    /// request's `Origin`.
    public init(allowedOrigins: Set<String>) {
        self.allowed = allowedOrigins
    }

    public func handle(_ request: ServerRequest, context: inout Context,
                next: (ServerRequest, inout Context) throws -> ServerResponse) throws -> ServerResponse {
        guard let origin = request.headers["Origin"] else { return try next(request, &context) }
        guard allowed.contains(origin) else { throw HTTPError(.forbidden, reason: "origin not allowed") }
        if request.method == .options, let method = request.headers["Access-Control-Request-Method"] {
            let requested = (request.headers["Access-Control-Request-Headers"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            guard CORSRules.allowedMethods.contains(method), requested.allSatisfy(CORSRules.allowedHeaders.contains) else {
                throw HTTPError(.forbidden, reason: "cross-origin request not allowed")
            }
            var headers = CORSRules.headers(origin: origin)
            headers["Access-Control-Allow-Methods"] = CORSRules.allowedMethodList
            headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Range"
            headers["Access-Control-Max-Age"] = String(CORSRules.preflightMaxAgeSeconds)
            return ServerResponse(status: .noContent, headers: headers)
        }
        var response: ServerResponse
        do {
            response = try next(request, &context)
        } catch let error as HTTPError {
            // Refusals must reach the page too, or it could not show their reason.
            response = error.response
        }
        for (name, value) in CORSRules.headers(origin: origin) { response.headers[name] = value }
        response.headers["Access-Control-Expose-Headers"] = CORSRules.exposedHeaders
        return response
    }
}

/// What `CORSMiddleware` allows, apart from the origins (a generic type has no stored statics).
enum CORSRules {
    /// Compared whole with `Access-Control-Request-Method` (a method name is case-sensitive).
    static let allowedMethods: Set<String> = Set(methodOrder)
    static let allowedMethodList = methodOrder.joined(separator: ", ")
    private static let methodOrder = ["GET", "HEAD", "POST", "DELETE"]
    static let allowedHeaders: Set<String> = ["authorization", "content-type", "range"]
    /// Headers the page may read beyond the CORS-safelisted ones.
    static let exposedHeaders = "Retry-After, WWW-Authenticate, Content-Range"
    static let preflightMaxAgeSeconds = 600

    static func headers(origin: String) -> ServerHeaders {
        var headers = ServerHeaders()
        headers["Access-Control-Allow-Origin"] = origin
        headers["Vary"] = "Origin"
        return headers
    }
}
