import CMicroHTTPD
import Foundation
import Glibc
import Synchronization

/// HTTP/1.1 (keep-alive) and HTTPS server on libmicrohttpd: a pool of worker threads, each with
/// its own epoll loop. Parsing, the idle timeout and TLS are libmicrohttpd's; which connections
/// are taken, the per-address cap and the request deadline are `ConnectionGuard`'s; this type
/// collects each request and hands it to an `HTTPResponder`.
///
/// Handlers are synchronous and run on the worker thread that owns the connection. The key
/// server's work per request is short and CPU-bound (JSON, a few crypto operations, an SQLite
/// WAL transaction), and libmicrohttpd needs the response before its callback returns (or a
/// suspend/resume round trip). Bridging into Swift concurrency would park the worker on a
/// semaphore per request and add two thread hops for nothing, while the pool size (default =
/// cores) already bounds how much runs at once. A handler that has to wait on something slow
/// holds one worker; keep handlers fast and give slow back ends their own timeouts.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore
    // Guards daemon, boundPort and the C strings; callbacks never take it.
    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var boundPort = 0
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var finished = false

    /// The server makes each request's `Context` and hands both to `responder`.
    public init<Context: RequestContext>(configuration: HTTPServerConfiguration, responder: HTTPResponder<Context>) {
        self.configuration = configuration
        let connectionLimit = configuration.maxConnections > 0 ? configuration.maxConnections : Int(Int32.max)
        let perAddress = configuration.maxConnectionsPerIP > 0 ? configuration.maxConnectionsPerIP : Int(Int32.max)
        let guardian = ConnectionGuard(
            limits: ConnectionGuard.Limits(maxConnections: connectionLimit, maxConnectionsPerAddress: perAddress,
                                           reservedConnections: max(0, configuration.effectiveReservedConnections),
                                           requestDeadline: max(.seconds(1), configuration.requestDeadline)),
            proxies: TrustedProxies(configuration.trustedProxies) ?? .none)
        self.core = ServerCore(responder: { request, core in
            var context = Context(core: core)
            return responder.respond(to: request, context: &context)
        }, maxBodyBytes: configuration.maxBodyBytes, connections: guardian)
    }

    public convenience init<Context: RequestContext>(configuration: HTTPServerConfiguration, router: Router<Context>) {
        self.init(configuration: configuration, responder: router.responder())
    }

    deinit {
        stopDaemon(gracePeriod: .zero)
        for pointer in cStrings { free(pointer) }
    }

    /// The port the server listens on (the kernel's pick when configured with 0); 0 before start.
    public var port: Int {
        lock.lock()
        defer { lock.unlock() }
        return boundPort
    }

    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return daemon != nil
    }

    /// Requests received and not yet completely answered.
    public var inFlightRequests: Int { core.inFlight.load(ordering: .acquiring) }

    /// Connections the accept policy refused (over a limit), and connections closed because
    /// their request had not arrived by the deadline, since start.
    public var refusedConnections: Int { core.connections.refusedConnections.load(ordering: .relaxed) }
    public var expiredRequests: Int { core.connections.expiredRequests.load(ordering: .relaxed) }

    /// Binds and starts serving. A server starts once; make a new one to serve again.
    public func start() throws(HTTPServerError) {
        lock.lock()
        defer { lock.unlock() }
        guard daemon == nil, !finished else { throw HTTPServerError(.alreadyStarted, "the server was already started") }
        let config = configuration
        guard (0...65_535).contains(config.port) else { throw HTTPServerError(.invalidConfiguration, "port out of range") }
        guard config.maxBodyBytes >= 0 else { throw HTTPServerError(.invalidConfiguration, "maxBodyBytes is negative") }
        guard config.maxHeaderBytes >= 4096 else { throw HTTPServerError(.invalidConfiguration, "maxHeaderBytes below 4096") }
        guard config.maxConnections >= 0, config.maxConnectionsPerIP >= 0, config.threadPoolSize >= 0 else {
            throw HTTPServerError(.invalidConfiguration, "negative connection or thread limit")
        }
        let reserve = config.effectiveReservedConnections
        guard reserve >= 0, config.maxConnections == 0 || reserve < config.maxConnections else {
            throw HTTPServerError(.invalidConfiguration, "reservedConnections must be from 0 to below maxConnections")
        }
        guard TrustedProxies(config.trustedProxies) != nil else {
            throw HTTPServerError(.invalidConfiguration, "trustedProxies holds an entry that is neither an IP address nor a CIDR block")
        }
        let timeoutSeconds = max(1, Int(config.requestTimeout.components.seconds))
        Self.raiseDescriptorLimit(toAtLeast: config.maxConnections + Self.descriptorHeadroom)

        var address = try Self.socketAddress(host: config.host, port: config.port)
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        let coreCookie = Unmanaged.passUnretained(core).toOpaque()
        var options: [MHD_OptionItem] = [
            mediadrm_mhd_option_notify_completed(requestCompletedCallback, coreCookie),
            mediadrm_mhd_option_notify_connection(connectionNotificationCallback, coreCookie),
            mediadrm_mhd_option_uri_log(requestTargetCallback, coreCookie),
            mediadrm_mhd_option_int(.CONNECTION_MEMORY_LIMIT, config.maxHeaderBytes),
            mediadrm_mhd_option_int(.CONNECTION_TIMEOUT, timeoutSeconds),
            // The kernel caps this at net.core.somaxconn (4096 on current kernels).
            mediadrm_mhd_option_int(.LISTEN_BACKLOG_SIZE, Int(SOMAXCONN)),
        ]
        if config.threadPoolSize > 1 { options.append(mediadrm_mhd_option_int(.THREAD_POOL_SIZE, config.threadPoolSize)) }
        // The accept policy enforces maxConnections and the per-address cap. libmicrohttpd's own
        // limit is split evenly over its worker threads; at twice ours, one worker that happens to
        // hold many connections never refuses a client the policy would take.
        if config.maxConnections > 0 { options.append(mediadrm_mhd_option_int(.CONNECTION_LIMIT, 2 * config.maxConnections)) }
        if let tls = config.tls {
            guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else {
                throw HTTPServerError(.tlsUnavailable, "libmicrohttpd was built without TLS")
            }
            flags |= MHD_USE_TLS.rawValue
            // libmicrohttpd reads these during start; they stay allocated for the server's life.
            let certificate = strdup(tls.certificatePEM), key = strdup(tls.privateKeyPEM), priorities = strdup(tls.priorities)
            guard let certificate, let key, let priorities else {
                free(certificate); free(key); free(priorities)
                throw HTTPServerError(.startFailed, "out of memory")
            }
            cStrings += [certificate, key, priorities]
            options.append(mediadrm_mhd_option_pointer(.HTTPS_MEM_CERT, certificate))
            options.append(mediadrm_mhd_option_pointer(.HTTPS_MEM_KEY, key))
            options.append(mediadrm_mhd_option_pointer(.HTTPS_PRIORITIES, priorities))
        }

        let started: OpaquePointer? = withUnsafeMutableBytes(of: &address.storage) { addressBytes in
            options.append(mediadrm_mhd_option_pointer(.SOCK_ADDR, addressBytes.baseAddress))
            options.append(mediadrm_mhd_option_end())
            return options.withUnsafeMutableBufferPointer { items in
                mediadrm_mhd_start_daemon(flags, UInt16(config.port), acceptPolicyCallback, coreCookie,
                                          accessHandlerCallback, coreCookie, items.baseAddress)
            }
        }
        guard let started else {
            throw HTTPServerError(.startFailed, config.tls == nil
                ? "cannot listen on the configured address (in use or not permitted)"
                : "cannot start: address in use, or the TLS certificate or key was refused")
        }
        daemon = started
        boundPort = Int(mediadrm_mhd_bound_port(started))
        core.connections.startWatchdog()
    }

    /// Descriptors beyond the connections: listening socket, epoll and signalling descriptors
    /// per worker, the state store, logs.
    static let descriptorHeadroom = 256

    /// Raises the soft descriptor limit (up to the hard one) so `maxConnections` connections can
    /// be accepted: the common default of 1024 would fail accepts before the limit is reached.
    static func raiseDescriptorLimit(toAtLeast wanted: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Stops accepting connections, lets requests in flight finish (up to `gracePeriod`,
    /// default the configuration's), then closes every connection and stops the workers.
    /// Idle keep-alive connections are closed. Blocks until done; safe to call more than once.
    /// A handler still running after the grace period is waited for, since a worker thread
    /// cannot be interrupted; handlers are expected to be short.
    public func shutdown(gracePeriod: Duration? = nil) {
        stopDaemon(gracePeriod: gracePeriod ?? configuration.shutdownGracePeriod)
    }

    private func stopDaemon(gracePeriod: Duration) {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        guard let running = daemon else { return }
        let listener = MHD_quiesce_daemon(running)
        if listener >= 0 { close(listener) }
        let deadline = ContinuousClock.now + gracePeriod
        while core.inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            usleep(2_000)
        }
        core.connections.stopWatchdog()
        MHD_stop_daemon(running)
        daemon = nil
    }

    struct ResolvedAddress {
        var storage = sockaddr_storage()
        var isIPv6 = false

        /// Copies a `sockaddr_in` or `sockaddr_in6` into the storage.
        mutating func store<Address>(_ address: Address) {
            withUnsafeBytes(of: address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        }
    }

    static func socketAddress(host: String, port: Int) throws(HTTPServerError) -> ResolvedAddress {
        var resolved = ResolvedAddress()
        let name = host == "localhost" ? "127.0.0.1" : (host.isEmpty ? "0.0.0.0" : host)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = v4
            resolved.store(address)
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = v6
            resolved.store(address)
            resolved.isIPv6 = true
        } else {
            throw HTTPServerError(.invalidAddress, "listen host must be a numeric IP address or localhost")
        }
        return resolved
    }
}

/// What the C callbacks reach through their `cls` pointer. Immutable apart from the atomic
/// counter, so every worker thread may use it at once.
final class ServerCore: @unchecked Sendable {
    /// The router's responder with the context type erased: the C callbacks are not generic.
    typealias Respond = @Sendable (ServerRequest, CoreRequestContext) -> ServerResponse
    let responder: Respond
    let maxBodyBytes: Int
    let connections: ConnectionGuard
    let inFlight = Atomic<Int>(0)

    init(responder: @escaping Respond, maxBodyBytes: Int, connections: ConnectionGuard) {
        self.responder = responder
        self.maxBodyBytes = maxBodyBytes
        self.connections = connections
    }

    /// The request line was read: the request's state starts here, with the raw target.
    func requestTarget(_ uri: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
        let state = RequestState(rawTarget: uri)
        return Unmanaged.passRetained(state).toOpaque()
    }

    /// libmicrohttpd's access handler protocol: the first call (no per-request state yet) sees
    /// only the headers; later calls deliver body bytes (`uploadSize` > 0; we must consume them
    /// by setting it to 0); the call with `uploadSize` 0 after the first means the body is
    /// complete, and we answer then.
    func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if slot.pointee == nil { slot.pointee = requestTarget(nil) }
        guard let existing = slot.pointee else { return .NO }
        let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        guard state.headersTaken else {
            return begin(state, connection: connection, url: url, method: method, version: version)
        }
        let count = uploadSize.pointee
        if state.answered {
            // A response is queued already; drop whatever still arrives.
            uploadSize.pointee = 0
            return .YES
        }
        if count > 0 {
            guard let upload, count <= maxBodyBytes - state.body.count else {
                // A chunked body past the limit. libmicrohttpd 0.9.75 refuses to queue a response
                // while a body is being received, so the connection is dropped (MHD_NO): no more
                // of the body is read and the handler never runs.
                state.answered = true
                let queued = queue(HTTPError.payloadTooLarge.response, requestID: nil, on: connection)
                return queued
            }
            upload.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
                state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            }
            uploadSize.pointee = 0
            return .YES
        }
        state.answered = true
        return dispatch(state, on: connection)
    }

    private func begin(_ state: RequestState, connection: OpaquePointer, url: UnsafePointer<CChar>?,
                       method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> MHD_Result {
        state.headersTaken = true
        state.method = method.map { String(cString: $0) } ?? ""
        state.path = url.map { String(cString: $0) } ?? "/"
        inFlight.add(1, ordering: .acquiringAndReleasing)
        // Headers are complete at the first call: take them now and judge the request before
        // any body byte is read.
        state.headers = Self.values(of: .HEADER_KIND, on: connection).reduce(into: ServerHeaders()) {
            $0.add(name: $1.0, value: $1.1 ?? "")
        }
        state.peer = Self.peerAddress(connection)
        state.client = connections.proxies.client(peer: state.peer, forwardedFor: state.headers.values(for: "X-Forwarded-For"))
        if let refusal = Self.targetRefusal(state, url: url, version: version) ?? framingRefusal(state.headers) {
            state.answered = true
            return queue(refusal.response, requestID: nil, on: connection, closing: true)
        }
        if state.client != state.peer {
            guard connections.beginForwarded(client: state.client) else {
                state.answered = true
                return queue(HTTPError(.tooManyRequests, reason: "too many requests in progress for one client").response,
                             requestID: nil, on: connection)
            }
            state.countedForwarded = true
        }
        return .YES
    }

    /// libmicrohttpd reads the request target as a C string, so a NUL byte in it (raw, or
    /// `%00` once decoded) would silently cut the path (`/healthz\0abc` served as `/healthz`).
    /// A raw NUL shows as a target shorter than the space libmicrohttpd found for it: the
    /// version string follows the target and its separator in the request-line buffer.
    static func targetRefusal(_ state: RequestState, url: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> HTTPError? {
        let nul = HTTPError(.badRequest, reason: "the request target contains a NUL byte (raw or %00)")
        if state.rawTarget?.contains("%00") == true { return nul }
        if let start = state.rawTargetStart, let url, let version, UnsafeRawPointer(url) == start, version.pointee != 0,
           start.distance(to: UnsafeRawPointer(version)) - 1 > state.rawTargetLength {
            return nul
        }
        return nil
    }

    /// The connection's peer as a numeric address ("" when unknown).
    static func peerAddress(_ connection: OpaquePointer) -> String {
        var addressBuffer = [CChar](repeating: 0, count: 64)
        return addressBuffer.withUnsafeMutableBufferPointer { buffer -> String in
            guard let base = buffer.baseAddress,
                  mediadrm_mhd_client_address(connection, base, buffer.count) == 0 else { return "" }
            return String(cString: base)
        }
    }

    /// libmicrohttpd 0.9.75 checks that Content-Length is a number but accepts it twice, or
    /// together with Transfer-Encoding; both are request-smuggling shapes (RFC 9112 §6.3), so
    /// they are refused here. A declared length over the limit is refused before reading. It
    /// reads a body only with exactly `Transfer-Encoding: chunked`; any other coding would make
    /// it wait for the connection to close, so it is refused: 501 for a coding this server does
    /// not implement (RFC 9112 §6.1), 400 when chunked is not the final coding (§6.3).
    private func framingRefusal(_ headers: ServerHeaders) -> HTTPError? {
        let codings = headers.values(for: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !codings.isEmpty, codings != ["chunked"] {
            guard codings.last == "chunked" else {
                return HTTPError(.badRequest, reason: "Transfer-Encoding must end with chunked")
            }
            return HTTPError(HTTPStatus(code: 501), reason: "only the chunked transfer coding is supported")
        }
        let lengths = headers.values(for: "Content-Length")
        guard !lengths.isEmpty else { return nil }
        guard lengths.count == 1 else { return HTTPError(.badRequest, reason: "repeated Content-Length") }
        guard codings.isEmpty else {
            return HTTPError(.badRequest, reason: "both Content-Length and Transfer-Encoding")
        }
        let text = lengths[0].trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return HTTPError(.badRequest, reason: "malformed Content-Length")
        }
        // All digits: a value too large for UInt64 is also over any limit.
        if UInt64(text).map({ $0 > UInt64(maxBodyBytes) }) ?? true { return HTTPError.payloadTooLarge }
        return nil
    }

    private static func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String?)] {
        let collector = ValueCollector()
        _ = MHD_get_connection_values(connection, kind, valueCollectorCallback, Unmanaged.passUnretained(collector).toOpaque())
        return collector.pairs
    }

    private func dispatch(_ state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        let query = Self.values(of: .GET_ARGUMENT_KIND, on: connection).map { HTTPQueryItem(name: $0.0, value: $0.1) }
        let request = ServerRequest(method: HTTPMethod(state.method), path: state.path, queryItems: query,
                                  headers: state.headers, body: state.body, remoteAddress: state.peer)
        state.body = []
        let context = CoreRequestContext(remoteAddress: state.peer, clientAddress: state.client)
        let response = responder(request, context)
        return queue(response, requestID: context.requestID, on: connection)
    }

    /// Queues the answer; `closing` for a request whose framing cannot be trusted, so nothing
    /// after it on the connection is read as another request.
    func queue(_ response: ServerResponse, requestID: String?, on connection: OpaquePointer, closing: Bool = false) -> MHD_Result {
        connections.answering(connection)
        let body = response.body
        let created: OpaquePointer? = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        // libmicrohttpd refuses names or values with CR, LF or NUL, so a header cannot split the
        // response; such a header is dropped rather than sent.
        for (name, value) in response.headers {
            _ = MHD_add_response_header(created, name, value)
        }
        if !response.headers.contains("Cache-Control") {
            _ = MHD_add_response_header(created, "Cache-Control", "no-store")
        }
        // Every answer is the type it declares (JSON, text, a licence, a player file): a browser
        // must never sniff one into HTML or script.
        if !response.headers.contains("X-Content-Type-Options") {
            _ = MHD_add_response_header(created, "X-Content-Type-Options", "nosniff")
        }
        if let requestID { _ = MHD_add_response_header(created, "X-Request-ID", requestID) }
        if closing { _ = MHD_add_response_header(created, "Connection", "close") }
        let status = UInt32(clamping: max(100, min(599, response.status.code)))
        return MHD_queue_response(connection, status, created)
    }

    func completed(connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { connections.requestFinished(connection) }
        guard let slot, let existing = slot.pointee else { return }
        let state = Unmanaged<RequestState>.fromOpaque(existing).takeRetainedValue()
        slot.pointee = nil
        if state.countedForwarded { connections.endForwarded(client: state.client) }
        if state.headersTaken { inFlight.subtract(1, ordering: .acquiringAndReleasing) }
    }

    func connectionNotification(_ connection: OpaquePointer, _ code: MHD_ConnectionNotificationCode) {
        switch code {
        case MHD_ConnectionNotificationCode(rawValue: 0): // MHD_CONNECTION_NOTIFY_STARTED
            connections.started(connection, descriptor: mediadrm_mhd_connection_fd(connection),
                                address: Self.peerAddress(connection))
        default:
            connections.closed(connection)
        }
    }
}

/// One request's state between access-handler calls; owned by the connection's worker thread.
final class RequestState {
    /// The request target as received (before percent-decoding), up to its first NUL byte;
    /// where it starts in libmicrohttpd's buffer, and its length up to that NUL.
    let rawTarget: String?
    let rawTargetStart: UnsafeRawPointer?
    let rawTargetLength: Int
    var method = ""
    var path = "/"
    var headers = ServerHeaders()
    var body: [UInt8] = []
    /// The TCP peer, and whom the request is for (the peer, or a trusted proxy's forwarded client).
    var peer = ""
    var client = ""
    var headersTaken = false
    var countedForwarded = false
    var answered = false

    init(rawTarget: UnsafePointer<CChar>?) {
        self.rawTarget = rawTarget.map { String(cString: $0) }
        self.rawTargetStart = rawTarget.map { UnsafeRawPointer($0) }
        self.rawTargetLength = rawTarget.map { strlen($0) } ?? 0
    }
}

/// Receives `MHD_get_connection_values` pairs on the calling thread.
final class ValueCollector {
    var pairs: [(String, String?)] = []
}

private let valueCollectorCallback: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) }))
    return .YES
}

private let accessHandlerCallback: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, slot in
    guard let cls, let connection, let uploadSize, let slot else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.access(connection: connection, url: url, method: method, version: version, upload: upload,
                       uploadSize: uploadSize, slot: slot)
}

private let requestCompletedCallback: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    guard let cls else { return }
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().completed(connection: connection, slot: slot)
}

private let requestTargetCallback: mediadrm_uri_log_callback = { cls, uri, _ in
    guard let cls else { return nil }
    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestTarget(uri)
}

private let connectionNotificationCallback: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().connectionNotification(connection, code)
}

private let acceptPolicyCallback: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return .NO }
    var buffer = [CChar](repeating: 0, count: 64)
    let text = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
        guard let base = buffer.baseAddress, mediadrm_format_address(address, base, buffer.count) == 0 else { return nil }
        return String(cString: base)
    }
    guard let text else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().connections.admit(address: text) ? .YES : .NO
}
