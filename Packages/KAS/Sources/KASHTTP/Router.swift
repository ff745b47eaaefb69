/// Routes requests by method and path pattern. Build it once at start-up (it is not thread-safe
/// while routes are added), then hand it to `HTTPServer`, which takes an immutable `responder()`.
///
/// Patterns are `/`-separated segments; `{name}` captures one non-empty segment. A literal
/// segment wins over a capture at the same position. A trailing slash is ignored. An unknown path answers 404, a known path
/// with another method 405 with `Allow`; a HEAD request uses the GET route when there is no HEAD one.
public final class Router<Context: RequestContext> {
    struct Route {
        let method: HTTPMethod
        let pattern: String
        let segments: [Segment]
        let chain: MiddlewareChain<Context>
    }

    enum Segment: Equatable {
        case literal(String)
        case parameter(String)
    }

    private var routes: [Route] = []
    private var middleware: [any HTTPMiddleware<Context>] = []

    public init() {}

    /// Router-wide middleware: wraps every request, including the 404 and 405 answers, in the
    /// order added (first added = outermost). Logging, metrics and error mapping belong here.
    @discardableResult
    public func add(middleware: any HTTPMiddleware<Context>) -> Router<Context> {
        self.middleware.append(middleware)
        return self
    }

    /// A group of routes under `prefix` sharing `middleware` (applied inside the router-wide ones).
    public func group(_ prefix: String = "", middleware: [any HTTPMiddleware<Context>] = []) -> RouteGroup<Context> {
        RouteGroup(router: self, prefix: prefix, middleware: middleware)
    }

    @discardableResult
    public func on(_ method: HTTPMethod, _ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> {
        register(method: method, path: path, middleware: [], handler: handler)
        return self
    }

    @discardableResult
    public func get(_ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> { on(.get, path, handler: handler) }
    @discardableResult
    public func post(_ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> { on(.post, path, handler: handler) }
    @discardableResult
    public func put(_ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> { on(.put, path, handler: handler) }
    @discardableResult
    public func delete(_ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> { on(.delete, path, handler: handler) }
    @discardableResult
    public func patch(_ path: String, handler: @escaping HTTPHandler<Context>) -> Router<Context> { on(.patch, path, handler: handler) }

    /// The routes registered so far, as `METHOD pattern` strings.
    public var routeDescriptions: [String] { routes.map { "\($0.method.rawValue) \($0.pattern)" } }

    /// An immutable snapshot of the routes and middleware, safe to use from every worker thread.
    public func responder() -> HTTPResponder<Context> {
        HTTPResponder(routes: routes, middleware: middleware)
    }

    /// Route patterns come from the program, not from clients: a malformed one is a programming
    /// error caught at start-up, hence a precondition rather than a thrown error.
    func register(method: HTTPMethod, path: String, middleware: [any HTTPMiddleware<Context>], handler: @escaping HTTPHandler<Context>) {
        let segments = Self.parsePattern(path)
        let pattern = "/" + segments.map { segment -> String in
            switch segment {
            case .literal(let text): return text
            case .parameter(let name): return "{\(name)}"
            }
        }.joined(separator: "/")
        precondition(!routes.contains { $0.method == method && $0.segments == segments },
                     "duplicate route \(method.rawValue) \(pattern)")
        routes.append(Route(method: method, pattern: pattern, segments: segments,
                            chain: MiddlewareChain<Context>(middleware: middleware, endpoint: handler)))
    }

    static func parsePattern(_ path: String) -> [Segment] {
        var names = Set<String>()
        return path.split(separator: "/", omittingEmptySubsequences: true).map { part -> Segment in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                let name = String(part.dropFirst().dropLast())
                precondition(!name.isEmpty && !name.contains("{") && !name.contains("}"),
                             "bad path parameter in route pattern \(path)")
                precondition(names.insert(name).inserted, "repeated path parameter in route pattern \(path)")
                return .parameter(name)
            }
            precondition(!part.contains("{") && !part.contains("}"), "bad route pattern \(path)")
            return .literal(String(part))
        }
    }
}

/// Routes sharing a path prefix and middleware. Groups nest: a child group adds its prefix and
/// runs its middleware inside its parent's.
public struct RouteGroup<Context: RequestContext> {
    private let router: Router<Context>
    private let prefix: String
    private let middleware: [any HTTPMiddleware<Context>]

    init(router: Router<Context>, prefix: String, middleware: [any HTTPMiddleware<Context>]) {
        self.router = router
        self.prefix = prefix
        self.middleware = middleware
    }

    /// This group with `middleware` appended (inside the ones already there). Applies to the
    /// routes registered through the returned group.
    public func add(middleware: any HTTPMiddleware<Context>) -> RouteGroup<Context> {
        RouteGroup(router: router, prefix: prefix, middleware: self.middleware + [middleware])
    }

    public func group(_ prefix: String, middleware: [any HTTPMiddleware<Context>] = []) -> RouteGroup<Context> {
        RouteGroup(router: router, prefix: Self.join(self.prefix, prefix), middleware: self.middleware + middleware)
    }

    @discardableResult
    public func on(_ method: HTTPMethod, _ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> {
        router.register(method: method, path: Self.join(prefix, path), middleware: middleware, handler: handler)
        return self
    }

    @discardableResult
    public func get(_ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> { on(.get, path, handler: handler) }
    @discardableResult
    public func post(_ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> { on(.post, path, handler: handler) }
    @discardableResult
    public func put(_ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> { on(.put, path, handler: handler) }
    @discardableResult
    public func delete(_ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> { on(.delete, path, handler: handler) }
    @discardableResult
    public func patch(_ path: String, handler: @escaping HTTPHandler<Context>) -> RouteGroup<Context> { on(.patch, path, handler: handler) }

    private static func join(_ a: String, _ b: String) -> String { a + "/" + b }
}

/// The immutable form of a `Router`: matches a request, runs the router-wide middleware around
/// the route's own chain, and turns anything thrown past all middleware into a JSON error.
public struct HTTPResponder<Context: RequestContext>: Sendable {
    private let routes: [Router<Context>.Route]
    private let middleware: [any HTTPMiddleware<Context>]
    private let direct: HTTPHandler<Context>?

    init(routes: [Router<Context>.Route], middleware: [any HTTPMiddleware<Context>]) {
        self.routes = routes
        self.middleware = middleware
        self.direct = nil
    }

    /// A responder around one handler (no routing), for servers that do their own dispatch.
    public init(handler: @escaping HTTPHandler<Context>) {
        self.routes = []
        self.middleware = []
        self.direct = handler
    }

    public func respond(to request: ServerRequest, context: inout Context) -> ServerResponse {
        var endpoint: HTTPHandler<Context>
        switch match(request.method, path: request.path) {
        case .found(let route, let parameters):
            context.route = route.pattern
            context.parameters = parameters
            let chain = route.chain
            endpoint = { request, context in try chain.run(request, &context) }
        case .methodNotAllowed(let pattern, let allowed):
            context.route = pattern
            endpoint = { _, _ in throw HTTPError.methodNotAllowed(allowed: allowed) }
        case .notFound:
            endpoint = { _, _ in throw HTTPError.notFound }
        }
        if let direct { endpoint = direct }
        do {
            return try MiddlewareChain<Context>(middleware: middleware, endpoint: endpoint).run(request, &context)
        } catch {
            // Mapping here too keeps a router without ErrorMiddleware from leaking error text.
            if let httpError = error as? HTTPError { return httpError.response }
            return HTTPError.internalError.response
        }
    }

    enum Match {
        case found(Router<Context>.Route, PathParameters)
        case methodNotAllowed(pattern: String, allowed: [HTTPMethod])
        case notFound
    }

    func match(_ method: HTTPMethod, path: String) -> Match {
        // Empty segments inside the path are kept so `/session//heartbeat` cannot match a
        // capture; only the leading slash and one trailing slash are ignored.
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first?.isEmpty == true { parts.removeFirst() }
        if parts.last?.isEmpty == true { parts.removeLast() }
        var best: (route: Router<Context>.Route, rank: [Bool], parameters: [(String, String)])?
        var bestForPath: (rank: [Bool], pattern: String)?
        var allowed: [HTTPMethod] = []
        for route in routes where route.segments.count == parts.count {
            var parameters: [(String, String)] = []
            var rank: [Bool] = []
            var matches = true
            for (segment, part) in zip(route.segments, parts) {
                switch segment {
                case .literal(let text):
                    if text != part { matches = false }
                    rank.append(true)
                case .parameter(let name):
                    if part.isEmpty { matches = false }
                    parameters.append((name, String(part)))
                    rank.append(false)
                }
                if !matches { break }
            }
            guard matches else { continue }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            if bestForPath.map({ Self.outranks(rank, $0.rank) }) ?? true {
                bestForPath = (rank, route.pattern)
            }
            let methodMatches = route.method == method
            if methodMatches, best.map({ Self.outranks(rank, $0.rank) }) ?? true {
                best = (route, rank, parameters)
            }
        }
        if let best { return .found(best.route, PathParameters(best.parameters)) }
        if method == .head, allowed.contains(.get) { return match(.get, path: path) }
        if let bestForPath {
            if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
            return .methodNotAllowed(pattern: bestForPath.pattern, allowed: allowed)
        }
        return .notFound
    }

    /// Literal segments beat captures, compared from the left.
    private static func outranks(_ a: [Bool], _ b: [Bool]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x }
        return false
    }
}
