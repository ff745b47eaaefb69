/// Handles a request: the type of every route handler. Handlers are synchronous and run on the
/// libmicrohttpd worker thread that owns the connection. See `HTTPServer` for why.
public typealias HTTPHandler = @Sendable (HTTPRequest, inout RequestContext) throws -> HTTPResponse

/// Wraps the handlers of a router or a route group. Call `next` to go on (possibly with a changed
/// request or context); return without calling it to answer early; throw `HTTPError` to refuse.
public protocol HTTPMiddleware: Sendable {
    func handle(_ request: HTTPRequest, context: inout RequestContext,
                next: (HTTPRequest, inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse
}

/// Middleware in order (first = outermost) around an endpoint.
struct MiddlewareChain: Sendable {
    let middleware: [any HTTPMiddleware]
    let endpoint: HTTPHandler

    func run(_ request: HTTPRequest, _ context: inout RequestContext) throws -> HTTPResponse {
        try run(from: 0, request, &context)
    }

    private func run(from index: Int, _ request: HTTPRequest, _ context: inout RequestContext) throws -> HTTPResponse {
        guard index < middleware.count else { return try endpoint(request, &context) }
        return try middleware[index].handle(request, context: &context) { nextRequest, nextContext in
            try self.run(from: index + 1, nextRequest, &nextContext)
        }
    }
}
