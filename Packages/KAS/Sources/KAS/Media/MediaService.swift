import MediaDRMFPSv2
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import Synchronization
import MediaDRMTDF
import MediaDRMMedia

/// The media service behind `/media/v1` (fps-v2 §10, docs/protocol.md): sessions, key requests with
/// every §10.7 check and the media policy, the open (P-256 rewrap) and FairPlay delivery paths.
/// Handlers are synchronous, as the HTTP layer's are; every dependency is thread-safe.
public final class MediaService: Sendable {
    public typealias ViewerResolver = @Sendable (RequestContext) -> Identity?

    public let configuration: MediaServiceConfiguration
    public let store: any MediaStore
    public let keyCache: ContentKeyCache
    let admission: ManifestAdmission
    let fairPlay: (any FairPlayKeyModule)?
    let audit: MediaAuditLog?
    let metrics: Metrics?
    let clock: @Sendable () -> Date
    let viewerResolver: ViewerResolver
    let authorizer: MediaAuthorizer
    private let operations = Atomic<Int>(0)

    /// - Parameters:
    ///   - fairPlay: the FairPlay SDK module; nil answers every `spcData` request 503.
    ///   - viewer: who the request is for; by default read from the verified token's claims.
    public init(configuration: MediaServiceConfiguration, store: any MediaStore, unwrapper: any MediaKeyUnwrapper,
                fairPlay: (any FairPlayKeyModule)? = nil, audit: MediaAuditLog? = nil, metrics: Metrics? = nil,
                clock: @escaping @Sendable () -> Date = { Date() },
                viewer: @escaping ViewerResolver = { context in context.identity })
        throws(MediaServiceError)
    {
        guard let admission = ManifestAdmission(acceptedKASURLs: configuration.acceptedKASURLs, unwrapper: unwrapper),
              !admission.acceptedKAS.isEmpty else {
            throw MediaServiceError("acceptedKASURLs must hold at least one key service URL fps-v2 readers accept: "
                                    + "an https origin (or http to a loopback host) without path, query or user-info")
        }
        guard configuration.heartbeatSeconds > 0, configuration.sessionTimeoutSeconds >= configuration.heartbeatSeconds,
              configuration.keyRequestsPerMinute > 0, configuration.leaseSeconds > 0,
              configuration.maxLiveSessionsPerViewer > 0, (configuration.defaultMaxConcurrentStreams ?? 1) > 0
        else { throw MediaServiceError("media timing and limit settings must be positive (timeout >= heartbeat)") }
        self.configuration = configuration
        self.store = store
        self.admission = admission
        self.keyCache = ContentKeyCache(capacity: configuration.keyCacheCapacity, timeToLive: configuration.keyCacheTimeToLive)
        self.fairPlay = fairPlay
        self.audit = audit
        self.metrics = metrics
        self.clock = clock
        self.viewerResolver = viewer
        self.authorizer = MediaAuthorizer(store: store, audit: audit)
    }

    // MARK: Certificate

    public func certificate(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        guard let certificate = configuration.certificate else { throw HTTPError(.notFound, reason: "no certificate") }
        return .bytes(certificate, contentType: "application/octet-stream")
    }

    // MARK: Sessions

    static let startMembers = MediaSessionStart.members

    public func startSession(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let began = ContinuousClock.now
        let viewer = try authenticate(&context)
        var event = MediaAuditEvent.denied("session_start", viewer: viewer, reason: "malformed_request", time: clock())
        defer {
            event.latencyMilliseconds = Self.milliseconds(since: began)
            audit?.record(event)
        }
        guard case .object(let body) = try request.jsonBody(), body.keys.allSatisfy(Self.startMembers.contains),
              case .string(let asset)? = body["assetId"], CanonicalUUID.isCanonical(asset),
              case .string(let protocolText)? = body["protocol"], let proto = MediaProtocol(rawValue: protocolText)
        else { throw HTTPError(.badRequest, reason: "malformed session request") }
        event.asset = asset
        event.protocol = proto.rawValue
        var component: String?
        if let value = body["component"] {
            guard case .string(let id) = value, Self.isComponentID(id) else {
                throw HTTPError(.badRequest, reason: "malformed session request")
            }
            component = id
            event.component = id
        }
        var device: String?
        if let value = body["device"] {
            guard DeviceReport(json: value) != nil else { throw HTTPError(.badRequest, reason: "malformed device report") }
            device = JSONWriter.string(value, options: [.sortedKeys])
        }
        let sessionID = try makeSessionID()
        let idHash = Self.hash(sessionID)
        var playback = "session:" + idHash
        if let value = body["playbackId"] {
            guard case .string(let id) = value, Self.isPlaybackID(id) else {
                throw HTTPError(.badRequest, reason: "malformed session request")
            }
            playback = "client:" + id
        }
        let now = clock()
        let outcome: SessionStartOutcome
        do {
            let limit = try store.assetStreamLimit(asset: asset) ?? configuration.defaultMaxConcurrentStreams
            outcome = try store.startSession(
                NewMediaSession(idHash: idHash, viewer: viewer.storeKey, asset: asset, component: component,
                                protocol: proto, playback: playback, device: device,
                                timeout: TimeInterval(configuration.sessionTimeoutSeconds)),
                limit: limit, maxLiveSessionsPerViewer: configuration.maxLiveSessionsPerViewer, now: now)
        } catch {
            event.decision = .error
            event.reason = "store_failure"
            throw HTTPError(.serviceUnavailable, reason: "state store unavailable")
        }
        maintain(now: now)
        switch outcome {
        case .started(let record, let replaced):
            event.decision = .allow
            event.reason = "started"
            auditReplaced(replaced, viewer: viewer, asset: asset, component: component, now: now)
            metrics?.increment("media_sessions_started_total", help: "Media sessions started.")
            return .json(.object(JSONObject([
                ("status", .string("started")),
                ("sessionId", .string(sessionID)),
                ("heartbeatSeconds", .number(JSONNumber(configuration.heartbeatSeconds))),
                ("expiresAt", .number(JSONNumber(Int64(record.expires.timeIntervalSince1970)))),
            ])))
        case .concurrencyLimit:
            throw refuseStart(.concurrentStreams, reason: "concurrency limit", event: &event)
        case .tooManySessions:
            throw refuseStart(.tooManySessions, reason: "too many sessions", event: &event)
        }
    }

    /// A session start the viewer's limits refuse: 429 with the denial's code, audited and counted.
    private func refuseStart(_ denial: MediaDenial, reason: String, event: inout MediaAuditEvent) -> HTTPError {
        event.reason = denial.rawValue
        countDenial(denial.rawValue)
        return HTTPError(.tooManyRequests, reason: reason, code: denial.rawValue)
    }

    public func heartbeat(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let viewer = try authenticate(&context)
        // Empty; `{}` is taken as empty too, as players have sent it.
        guard request.body.isEmpty || (try? request.jsonBody()) == .object(JSONObject()) else {
            throw HTTPError(.badRequest, reason: "the heartbeat body must be empty")
        }
        guard let id = context.parameters["id"], Self.isSessionID(id) else { throw HTTPError(.notFound, reason: "no such session") }
        let record: MediaSessionRecord?
        do {
            record = try store.heartbeat(idHash: Self.hash(id), viewer: viewer.storeKey, now: clock(),
                                         timeout: TimeInterval(configuration.sessionTimeoutSeconds))
        } catch {
            throw HTTPError(.serviceUnavailable, reason: "state store unavailable")
        }
        guard let record else { throw HTTPError(.notFound, reason: "no such session") }
        return .json(.object(JSONObject([
            ("status", .string("alive")),
            ("heartbeatSeconds", .number(JSONNumber(configuration.heartbeatSeconds))),
            ("expiresAt", .number(JSONNumber(Int64(record.expires.timeIntervalSince1970)))),
        ])))
    }

    public func endSession(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let began = ContinuousClock.now
        let viewer = try authenticate(&context)
        guard let id = context.parameters["id"], Self.isSessionID(id) else { throw HTTPError(.notFound, reason: "no such session") }
        let ended: Bool
        do {
            ended = try store.endSession(idHash: Self.hash(id), viewer: viewer.storeKey, now: clock())
        } catch {
            throw HTTPError(.serviceUnavailable, reason: "state store unavailable")
        }
        audit?.record(MediaAuditEvent(time: clock(), event: "session_end", viewerHash: viewer.viewerHash, asset: nil,
                                      component: nil, protocol: nil, decision: ended ? .allow : .deny,
                                      reason: ended ? "ended" : "no_such_session",
                                      latencyMilliseconds: Self.milliseconds(since: began)))
        guard ended else { throw HTTPError(.notFound, reason: "no such session") }
        return .json(.object(JSONObject([("status", .string("ended"))])))
    }

    // MARK: Helpers

    func authenticate(_ context: inout RequestContext) throws(HTTPError) -> Identity {
        guard let viewer = viewerResolver(context) else { throw HTTPError.unauthorized }
        context.viewerHash = viewer.viewerHash
        return viewer
    }

    /// One `session_end` audit line per session a newer session of the same playback and
    /// component replaced: the audit log accounts for every session that ends.
    func auditReplaced(_ count: Int, viewer: Identity, asset: String, component: String?, now: Date) {
        guard count > 0 else { return }
        let ended = MediaAuditEvent.sessionEnded(viewer: viewer, asset: asset, component: component, reason: "replaced", time: now)
        for _ in 0..<count { audit?.record(ended) }
        metrics?.increment("media_sessions_replaced_total",
                           help: "Media sessions ended by a newer session of the same playback and component.", by: count)
    }

    func countDenial(_ reason: String) {
        metrics?.increment("media_denials_total", help: "Media requests refused, by reason.", labels: [("reason", reason)])
    }

    /// Prunes stale rows now and then (about one call in 256), off no particular request's path.
    private func maintain(now: Date) {
        let count = operations.add(1, ordering: .relaxed).newValue
        guard count % 256 == 0 else { return }
        try? store.prune(olderThan: now.addingTimeInterval(-configuration.sessionRetention), now: now)
    }

    /// 32 random bytes, base64url: opaque, a single safe path segment, and never derived from
    /// the viewer or asset.
    func makeSessionID() throws(HTTPError) -> String {
        do {
            return Base64URL.encode(try SecureRandom.bytes(count: 32))
        } catch {
            throw HTTPError(.serviceUnavailable, reason: "random generator unavailable")
        }
    }

    /// The store keeps SHA-256 of the id: a copy of the database holds no usable session id.
    static func hash(_ sessionID: String) -> String { Hex.encode(SHA256.hash(data: Data(sessionID.utf8))) }

    static func isSessionID(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(isBase64URLByte)
    }

    static func isPlaybackID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy(isBase64URLByte)
    }

    static func isComponentID(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7A).contains($0) }
    }

    private static func isBase64URLByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// The media gauges in Prometheus text (live sessions, key-cache entries), for the app's
    /// `/metrics` (the shared `Metrics` registry holds counters only).
    public func prometheusGauges(namespace: String = "kas") -> String {
        let live = (try? store.liveSessionCount(now: clock())) ?? 0
        return Self.gauge("\(namespace)_media_active_sessions", "Live media sessions.", live)
            + Self.gauge("\(namespace)_media_key_cache_entries", "Admitted manifests held in the content-key cache.",
                         keyCache.count)
    }

    private static func gauge(_ name: String, _ help: String, _ value: Int) -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(value)\n"
    }
}

public struct MediaServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "media service configuration error: \(reason)" }
}
