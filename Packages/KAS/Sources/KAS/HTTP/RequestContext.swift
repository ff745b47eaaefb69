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

/// What the server and middleware know about a request besides the request itself.
public struct RequestContext: Sendable {
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
    /// The viewer of the request's verified bearer token, set by the authentication middleware
    /// (made once from the verified claims, docs/protocol.md "Identity"); nil on public routes.
    public var identity: Identity?
    /// A keyed hash of the viewer for logs, set by whoever knows the viewer; logs never carry `sub`.
    public var viewerHash: String?

    public init(requestID: String = RequestContext.makeRequestID(), remoteAddress: String = "",
                clientAddress: String? = nil, startTime: ContinuousClock.Instant = .now) {
        self.requestID = requestID
        self.startTime = startTime
        self.remoteAddress = remoteAddress
        self.clientAddress = clientAddress ?? remoteAddress
        self.route = nil
        self.parameters = PathParameters()
        self.identity = nil
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
