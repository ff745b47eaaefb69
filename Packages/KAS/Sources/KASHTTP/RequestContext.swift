import MediaDRMJSON

/// Values captured by `{name}` segments of the matched route pattern.
public struct PathParameters: Sendable, Equatable, Sequence {
    public typealias Element = (name: String, value: String)
    private var storage: [Element] = []

    public init() {}
    public init(_ pairs: [(String, String)]) { storage = pairs.map { (name: $0.0, value: $0.1) } }

    public subscript(name: String) -> String? { storage.first { $0.name == name }?.value }

    /// The parameter's value; a missing one is a server bug (a route without that segment), 500.
    public func require(_ name: String) throws(HTTPError) -> String {
        guard let value = self[name] else { throw HTTPError.internalError }
        return value
    }

    public var count: Int { storage.count }
    public func makeIterator() -> IndexingIterator<[Element]> { storage.makeIterator() }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.storage.count == rhs.storage.count
            && zip(lhs.storage, rhs.storage).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// What the server, the router and generic middleware know about a request besides the request
/// itself. An application's context (`RequestContext`) carries one and adds its own members.
public struct CoreRequestContext: Sendable {
    /// Random per request; returned as `X-Request-ID` and written to the log line.
    public let requestID: String
    /// When the complete request (body included) was handed to the responder; logged latency
    /// runs from here, so a slow upload does not count as server time.
    public let startTime: ContinuousClock.Instant
    public let remoteAddress: String
    /// Whom the request is for: the peer, or the client a trusted proxy named in
    /// `X-Forwarded-For` (see `TrustedProxies`).
    public let clientAddress: String
    /// The matched route's pattern (`/media/v1/session/{id}/heartbeat`), nil when no route matched.
    /// Logs and metrics use this, never the raw path, which can carry session ids.
    public var route: String?
    public var parameters: PathParameters
    /// A keyed hash of the caller for logs, set by whoever knows the caller; logs never carry
    /// an identifier a client sent.
    public var viewerHash: String?

    public init(requestID: String = CoreRequestContext.makeRequestID(), remoteAddress: String = "",
                clientAddress: String? = nil, startTime: ContinuousClock.Instant = .now) {
        self.requestID = requestID
        self.startTime = startTime
        self.remoteAddress = remoteAddress
        self.clientAddress = clientAddress ?? remoteAddress
        self.route = nil
        self.parameters = PathParameters()
        self.viewerHash = nil
    }

    public var elapsed: Duration { ContinuousClock.now - startTime }

    /// 16 lowercase hex digits from the system CSPRNG.
    public static func makeRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The context a router passes to its middleware and handlers, made by the server for each
/// request from a `CoreRequestContext`. The HTTP layer reads only `core`; an application
/// declares its own context type with the members its middleware sets (the KAS's carries the
/// verified viewer), so the server and router never name an application type.
public protocol RequestContext: Sendable {
    init(core: CoreRequestContext)
    var core: CoreRequestContext { get set }
}

extension RequestContext {
    public var requestID: String { core.requestID }
    public var startTime: ContinuousClock.Instant { core.startTime }
    public var remoteAddress: String { core.remoteAddress }
    public var clientAddress: String { core.clientAddress }
    public var elapsed: Duration { core.elapsed }
    public var route: String? {
        get { core.route }
        set { core.route = newValue }
    }
    public var parameters: PathParameters {
        get { core.parameters }
        set { core.parameters = newValue }
    }
    public var viewerHash: String? {
        get { core.viewerHash }
        set { core.viewerHash = newValue }
    }
}

/// A context with nothing beyond the core: for servers and tests that need no members of their own.
public struct BasicRequestContext: RequestContext {
    public var core: CoreRequestContext
    public init(core: CoreRequestContext) { self.core = core }
    public init() { self.core = CoreRequestContext() }
}
