/// Handles a request: the type of every route handler. Handlers are synchronous and run on the
/// libmicrohttpd worker thread that owns the connection. See `HTTPServer` for why.
public typealias HTTPHandler<Context: RequestContext> = @Sendable (ServerRequest, inout Context) throws -> ServerResponse

/// Wraps the handlers of a router or a route group. Call `next` to go on (possibly with a changed
/// request or context); return without calling it to answer early; throw `HTTPError` to refuse.
public protocol HTTPMiddleware<Context>: Sendable {
    associatedtype Context: RequestContext
    func handle(_ request: ServerRequest, context: inout Context,
                next: (ServerRequest, inout Context) throws -> ServerResponse) throws -> ServerResponse
}

extension HTTPMiddleware {
    /// Runs `next` and reports the status the request ended with (a thrown `HTTPError`'s, 500 for
    /// any other error) before passing the response or the error on: for middleware that only
    /// observes (logs, metrics).
    func observing(_ request: ServerRequest, context: inout Context,
                   next: (ServerRequest, inout Context) throws -> ServerResponse,
                   report: (HTTPStatus, Context) -> Void) throws -> ServerResponse {
        let response: ServerResponse
        do {
            response = try next(request, &context)
        } catch {
            report((error as? HTTPError)?.status ?? .internalServerError, context)
            throw error
        }
        report(response.status, context)
        return response
    }
}

/// Middleware in order (first = outermost) around an endpoint.
struct MiddlewareChain<Context: RequestContext>: Sendable {
    let middleware: [any HTTPMiddleware<Context>]
    let endpoint: HTTPHandler<Context>

    func run(_ request: ServerRequest, _ context: inout Context) throws -> ServerResponse {
        try run(from: 0, request, &context)
    }

    private func run(from index: Int, _ request: ServerRequest, _ context: inout Context) throws -> ServerResponse {
        guard index < middleware.count else { return try endpoint(request, &context) }
        return try middleware[index].handle(request, context: &context) { nextRequest, nextContext in
            try self.run(from: index + 1, nextRequest, &nextContext)
        }
    }
}
