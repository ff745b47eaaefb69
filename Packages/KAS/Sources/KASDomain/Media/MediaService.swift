// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import KASObservability
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Synchronization

/// The media service behind `/media/v1` (fps-v2 §10, docs/protocol.md): sessions, key requests with
/// every §10.7 check and the media policy, the open (P-256 rewrap) and FairPlay delivery paths.
/// It decides on typed requests and sees no HTTP type: `registerMediaRoutes` puts it behind the
/// route adapter (`MediaRouteAdapter`), which decodes and encodes. Its steps are synchronous, as
/// the HTTP layer's handlers are; every dependency is thread-safe.
package final class MediaService: Sendable {
    /// The settings the service was made with.
    public let configuration: MediaServiceConfiguration
    /// Sessions, first plays, stream limits and rate buckets (`SQLiteMediaStore` in `kas serve`, or
    /// `RedisMediaStore` shared by the nodes with `store.url`).
    public let store: any MediaStore
    let keyCache: ContentKeyCache
    let admission: ManifestAdmission
    let fairPlay: (any FairPlayKeyModule)?
    let audit: MediaAuditLog?
    let metrics: Metrics?
    package let clock: @Sendable () -> Date
    let authorizer: MediaAuthorizer
    private let operations = Atomic<Int>(0)

    /// - Parameters:
    ///   - fairPlay: the FairPlay SDK module; nil answers every `spcData` request 503.
    public init(configuration: MediaServiceConfiguration, store: any MediaStore, unwrapper: any MediaKeyUnwrapper,
                fairPlay: (any FairPlayKeyModule)? = nil, audit: MediaAuditLog? = nil, metrics: Metrics? = nil,
                clock: @escaping @Sendable () -> Date = { Date() })
        throws(MediaServiceError)
    {
        guard let admission = ManifestAdmission(acceptedKASURLs: configuration.acceptedKASURLs, unwrapper: unwrapper),
              !admission.acceptedKAS.isEmpty else {
            throw MediaServiceError("acceptedKASURLs must hold at least one key service URL fps-v2 readers accept: "
                                    + "an https origin (or http to a loopback host) without path, query or user-info")
        }
        guard configuration.heartbeatSeconds > 0, configuration.sessionTimeoutSeconds >= configuration.heartbeatSeconds,
              configuration.keyRequestsPerMinute > 0, configuration.sessionStartsPerMinute > 0,
              configuration.playbackStartsPerMinute > 0, configuration.leaseSeconds > 0,
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
        self.authorizer = MediaAuthorizer(store: store, audit: audit, livePeriods: configuration.livePeriods)
    }

    // MARK: Sessions

    /// A started session: its id (given to the client once, stored only hashed) and its timing.
    package struct SessionStarted: Sendable, Equatable {
        package let sessionID: String
        package let heartbeatSeconds: Int
        package let expiresAt: Date
    }

    /// Where a live session stands after a heartbeat.
    package struct SessionStatus: Sendable, Equatable {
        package let heartbeatSeconds: Int
        package let expiresAt: Date
    }

    /// `session/start`: counts the start in the viewer's session-start budget (`rateLimited`
    /// when it is spent), then admits a session unless the viewer's limits refuse it
    /// (`sessionLimit`) or the store is full of live sessions (`unavailable(.storeFull)`),
    /// learning nothing from the request but its message. Every outcome is audited.
    package func startSession(_ decoded: Result<MediaSessionStart, MalformedMediaRequest>,
                      viewer: Identity) throws(MediaFailure) -> SessionStarted {
        try startSession(decoded, viewer: viewer, budget: .sessionStart)
    }

    /// A session the delivery service starts for a playback (its first session, or a licence
    /// URL's): admitted and audited as `session/start` admits one, without a session-start token
    /// (the playback start was counted in its own budget, a licence URL's key request in the
    /// key-request one).
    package func startPlaybackSession(_ start: MediaSessionStart, viewer: Identity) throws(MediaFailure) -> SessionStarted {
        try startSession(.success(start), viewer: viewer, budget: nil)
    }

    private func startSession(_ decoded: Result<MediaSessionStart, MalformedMediaRequest>, viewer: Identity,
                              budget: ViewerRateLimit?) throws(MediaFailure) -> SessionStarted {
        let began = ContinuousClock.now
        var event = MediaAuditEvent.denied("session_start", viewer: viewer, reason: "", time: clock())
        defer {
            event.latencyMilliseconds = Self.milliseconds(since: began)
            audit?.record(event)
        }
        do throws(MediaFailure) {
            if let budget { try consumeRateToken(budget, viewer: viewer, now: event.time) }
            let start: MediaSessionStart
            switch decoded {
            case .success(let message): start = message
            case .failure(let malformed):
                event.asset = malformed.asset
                event.protocol = malformed.protocol?.rawValue
                event.component = malformed.component
                throw malformed.failure
            }
            event.asset = start.assetID
            event.protocol = start.protocol.rawValue
            event.component = start.component
            let started = try admitSession(start, viewer: viewer)
            event.decision = .allow
            event.reason = "started"
            return started
        } catch {
            event.decision = error.decision
            event.reason = error.auditReason
            if error.isLimit { countDenial(error.auditReason) }
            throw error
        }
    }

    private func admitSession(_ start: MediaSessionStart, viewer: Identity) throws(MediaFailure) -> SessionStarted {
        let sessionID = try MediaSessionID.make()
        let idHash = MediaSessionID.hash(sessionID)
        let playback = start.playbackID.map(MediaSessionID.playbackKey(clientPlaybackID:)) ?? "session:" + idHash
        let device = start.device.map { JSONWriter.string($0.jsonValue, options: [.sortedKeys]) }
        let now = clock()
        let outcome: SessionStartOutcome
        do {
            let limit = try store.assetStreamLimit(asset: start.assetID) ?? configuration.defaultMaxConcurrentStreams
            outcome = try store.startSession(
                NewMediaSession(idHash: idHash, viewer: viewer.storeKey, asset: start.assetID, component: start.component,
                                protocol: start.protocol, playback: playback, device: device,
                                timeout: TimeInterval(configuration.sessionTimeoutSeconds)),
                limit: limit, maxLiveSessionsPerViewer: configuration.maxLiveSessionsPerViewer, now: now)
        } catch {
            throw .unavailable(.store)
        }
        maintain(now: now)
        switch outcome {
        case .started(let record, let replaced):
            auditReplaced(replaced, viewer: viewer, asset: start.assetID, component: start.component, now: now)
            metrics?.increment("media_sessions_started_total", help: "Media sessions started.")
            return SessionStarted(sessionID: sessionID, heartbeatSeconds: configuration.heartbeatSeconds,
                                  expiresAt: record.expires)
        case .concurrencyLimit:
            throw .sessionLimit(.concurrentStreams)
        case .tooManySessions:
            throw .sessionLimit(.tooManySessions)
        case .storeFull:
            throw .unavailable(.storeFull)
        }
    }

    /// `session/{id}/heartbeat`: extends a live session of this viewer.
    package func heartbeat(sessionID: String, viewer: Identity) throws(MediaFailure) -> SessionStatus {
        let record: MediaSessionRecord?
        do {
            record = try store.heartbeat(idHash: MediaSessionID.hash(sessionID), viewer: viewer.storeKey, now: clock(),
                                         timeout: TimeInterval(configuration.sessionTimeoutSeconds))
        } catch {
            throw .unavailable(.store)
        }
        guard let record else { throw .noSuchSession }
        return SessionStatus(heartbeatSeconds: configuration.heartbeatSeconds, expiresAt: record.expires)
    }

    /// `DELETE session/{id}`: ends a live session of this viewer; audited either way.
    package func endSession(sessionID: String, viewer: Identity) throws(MediaFailure) {
        let began = ContinuousClock.now
        let ended: Bool
        do {
            ended = try store.endSession(idHash: MediaSessionID.hash(sessionID), viewer: viewer.storeKey, now: clock())
        } catch {
            throw .unavailable(.store)
        }
        audit?.record(MediaAuditEvent(time: clock(), event: "session_end", viewerHash: viewer.viewerHash, asset: nil,
                                      component: nil, protocol: nil, decision: ended ? .allow : .deny,
                                      reason: ended ? "ended" : "no_such_session",
                                      latencyMilliseconds: Self.milliseconds(since: began)))
        guard ended else { throw .noSuchSession }
    }

    // MARK: Helpers

    /// One `session_end` audit line per session a newer session of the same playback and
    /// component replaced: the audit log accounts for every session that ends.
    func auditReplaced(_ count: Int, viewer: Identity, asset: String, component: String?, now: Date) {
        guard count > 0 else { return }
        let ended = MediaAuditEvent.sessionEnded(viewer: viewer, asset: asset, component: component, reason: "replaced", time: now)
        for _ in 0..<count { audit?.record(ended) }
        metrics?.increment("media_sessions_replaced_total",
                           help: "Media sessions ended by a newer session of the same playback and component.", by: count)
    }

    /// Closes an audited request: its decision, reason and latency, then its audit line.
    func finish(_ event: inout MediaAuditEvent, _ decision: MediaAuditEvent.Decision, reason: String,
                since began: ContinuousClock.Instant) {
        event.decision = decision
        event.reason = reason
        event.latencyMilliseconds = Self.milliseconds(since: began)
        audit?.record(event)
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

package struct MediaServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "media service configuration error: \(reason)" }
}
