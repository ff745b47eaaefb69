// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMTDF

/// Acquires, renews and releases the content keys of one fps-v2 playback on the open path, in
/// the manner of AVContentKeySession.
///
/// `start()` runs every component at once: its own media session (one `playbackId` for the
/// playback, so all components hold one concurrency slot), then a key request with a fresh
/// ephemeral P-256 key, the answer unwrapped (ECDH + HKDF + AES-GCM) to exactly 16 bytes. It
/// returns only with every component's key; the first failure cancels the others, ends every
/// session and is thrown. Afterwards each component renews on its own at
/// `LeaseSchedule.renewalDelay` after its last delivery (a new session, a new key request,
/// then the previous session ended), and each live session gets a heartbeat every
/// `heartbeatSeconds`. A failed renewal, a heartbeat answered 404 or a lease that runs out
/// fails the playback (see `validity`). `stop()` ends every session. No request is retried.
public actor ContentKeySession {
    public nonisolated let playbackID: String
    public nonisolated let components: [String]
    /// Checked by the output before each segment.
    public nonisolated let validity: KeyValidity

    private let service: any MediaKeyService
    private let clock: any PlaybackClock
    private let assetID: String
    private let manifest: Data
    private let reporter: KeyDeliveryReporter
    private let progress: (@Sendable (PlaybackEvent) -> Void)?

    private struct Live {
        var sessionID: String
        var heartbeatSeconds: Int
        var deliveredAt: Double
        var leaseSeconds: Int?
    }

    private struct Acquired: Sendable {
        let key: SecretKey
        let grant: MediaSessionGrant
        let leaseSeconds: Int?
        let deliveredAt: Double
    }

    /// Where the session is in its life. It only moves forward: `idle` → `acquiring` →
    /// `delivered`, and from any of them to `failed` (the first failure wins) or `stopped`.
    private enum Phase: Equatable {
        case idle
        /// `start()` is fetching every component's first key.
        case acquiring
        /// Every component has a key; renewals and heartbeats run.
        case delivered
        /// A failure ended the playback; `validity` carries it.
        case failed
        /// `stop()` was called.
        case stopped
    }

    private var phase = Phase.idle
    private var live: [String: Live] = [:]
    /// Components whose renewal is under way: the KAS replaces a component's session when its
    /// successor starts (one live session per playback and component), so a heartbeat of the
    /// session being renewed may come back 404 without anything having failed.
    private var renewing: Set<String> = []
    private var openSessions: [String] = []
    private var timers: [Task<Void, Never>] = []

    public init(service: any MediaKeyService, assetID: String, manifest: Data, components: [String],
                playbackID: String = ContentKeySession.makePlaybackID(), clock: any PlaybackClock = SystemPlaybackClock(),
                delegate: (any ContentKeySessionDelegate)? = nil, progress: (@Sendable (PlaybackEvent) -> Void)? = nil) {
        self.service = service
        self.assetID = assetID
        self.manifest = manifest
        self.components = components
        self.playbackID = playbackID
        self.clock = clock
        self.reporter = KeyDeliveryReporter(delegate: delegate)
        self.validity = KeyValidity(clock: clock)
        self.progress = progress
    }

    /// 16 random bytes, base64url: a KAS `playbackId`.
    public static func makePlaybackID() -> String {
        let bytes: [UInt8] = (try? SecureRandom.bytes(count: 16)) ?? Array(UUID().uuidString.utf8.prefix(16))
        return Base64URL.encode(bytes)
    }

    /// Every component's key (by component id), or the first failure.
    public func start() async throws(PlaybackError) -> [String: SecretKey] {
        guard phase != .stopped else { throw PlaybackError(.stopped, "the key session was stopped") }
        phase = .acquiring
        var keys: [String: SecretKey] = [:]
        var acquired: [String: Acquired] = [:]
        var failure: PlaybackError?
        await withTaskGroup(of: (String, Result<Acquired, PlaybackError>).self) { group in
            for component in components {
                group.addTask { (component, await self.acquireResult(component)) }
            }
            for await (component, result) in group {
                switch result {
                case .success(let value):
                    keys[component] = value.key
                    acquired[component] = value
                case .failure(let error):
                    if failure == nil {
                        failure = error
                        // The first failure is reported now, before the others wind down.
                        reporter.failed(error)
                        group.cancelAll()
                    }
                }
            }
        }
        if failure == nil, phase == .stopped { failure = PlaybackError(.stopped, "the key session was stopped") }
        if let failure {
            if phase != .stopped { phase = .failed }
            reporter.failed(failure)
            validity.fail(failure)
            await endEverything()
            throw failure
        }
        for (component, value) in acquired {
            live[component] = Live(sessionID: value.grant.sessionID, heartbeatSeconds: value.grant.heartbeatSeconds,
                                   deliveredAt: value.deliveredAt, leaseSeconds: value.leaseSeconds)
            validity.setLeaseEnd(component, value.leaseSeconds.map { value.deliveredAt + Double($0) })
        }
        phase = .delivered
        reporter.delivered(components)
        for component in components {
            timers.append(Task { await self.renewLoop(component) })
            timers.append(Task { await self.heartbeatLoop(component) })
        }
        return keys
    }

    /// Ends every media session and cancels renewals and heartbeats. Safe to call more than once.
    public func stop() async {
        phase = .stopped
        validity.fail(PlaybackError(.stopped, "the playback was stopped"))
        await endEverything()
    }

    /// Sessions started and not yet ended (for tests and diagnostics; ids stay opaque).
    public var openSessionCount: Int { openSessions.count }

    // MARK: Acquisition

    private func acquireResult(_ component: String) async -> Result<Acquired, PlaybackError> {
        do throws(PlaybackError) {
            return .success(try await acquire(component))
        } catch {
            return .failure(error)
        }
    }

    private func acquire(_ component: String) async throws(PlaybackError) -> Acquired {
        let began = clock.now()
        // A session start is never abandoned mid-flight (an unstructured task does not inherit
        // the group's cancellation): once the KAS may have created the session the client must
        // learn its id to end it, or the orphan holds a concurrency slot until it times out.
        let service = self.service
        let request = MediaSessionRequest(assetID: assetID, playbackID: playbackID, component: component)
        let started = await Task { () -> Result<MediaSessionGrant, PlaybackError> in
            do throws(PlaybackError) {
                return .success(try await service.startSession(request))
            } catch {
                return .failure(error)
            }
        }.value
        let grant = try started.get()
        openSessions.append(grant.sessionID)
        if phase == .stopped || Task.isCancelled {
            await end(grant.sessionID)
            throw PlaybackError(.stopped, "the key session was stopped")
        }
        progress?(.sessionStarted(component: component))
        let privateKey: ECP256.KeyAgreement.PrivateKey
        do {
            privateKey = try ECP256.KeyAgreement.PrivateKey()
        } catch {
            throw PlaybackError(.invalidArgument, "an ephemeral P-256 key could not be generated")
        }
        let response = try await service.requestKey(KeyRequestParameters(
            assetID: assetID, component: component, sessionID: grant.sessionID, manifest: manifest,
            clientPublicKeyPEM: privateKey.publicKey.pemRepresentation))
        let key = try Self.unwrap(response, with: privateKey)
        let now = clock.now()
        progress?(.keyDelivered(component: component, seconds: now - began))
        return Acquired(key: key, grant: grant, leaseSeconds: response.leaseSeconds, deliveredAt: now)
    }

    static func unwrap(_ response: MediaKeyResponse, with privateKey: ECP256.KeyAgreement.PrivateKey) throws(PlaybackError) -> SecretKey {
        let peer: ECP256.KeyAgreement.PublicKey
        do {
            peer = try ECP256.KeyAgreement.PublicKey(pemRepresentation: response.sessionPublicKeyPEM)
        } catch {
            throw PlaybackError(.malformed, "the key answer's session public key is not a P-256 PEM key")
        }
        let key: SecretKey
        do {
            key = try ECWrap.unwrap(response.wrappedKey, ephemeralPublicKey: peer, with: privateKey)
        } catch {
            throw PlaybackError(.malformed, "the wrapped key does not open with this request's ephemeral key")
        }
        guard key.byteCount == 16 else { throw PlaybackError(.malformed, "the delivered key is not 16 bytes") }
        return key
    }

    // MARK: Renewal and heartbeats

    private func renewLoop(_ component: String) async {
        while !Task.isCancelled {
            guard let current = live[component], let lease = current.leaseSeconds else { return }
            do {
                try await clock.sleep(until: current.deliveredAt + LeaseSchedule.renewalDelay(leaseSeconds: lease))
            } catch {
                return
            }
            guard phase == .delivered, !Task.isCancelled else { return }
            let previous = current.sessionID
            let renewed: Acquired
            renewing.insert(component)
            do throws(PlaybackError) {
                renewed = try await acquire(component)
            } catch {
                renewing.remove(component)
                await fail(error)
                return
            }
            renewing.remove(component)
            live[component] = Live(sessionID: renewed.grant.sessionID, heartbeatSeconds: renewed.grant.heartbeatSeconds,
                                   deliveredAt: renewed.deliveredAt, leaseSeconds: renewed.leaseSeconds)
            validity.setLeaseEnd(component, renewed.leaseSeconds.map { renewed.deliveredAt + Double($0) })
            // §10.6: the previous session is ended after the new key is delivered.
            await end(previous)
        }
    }

    private func heartbeatLoop(_ component: String) async {
        var last = clock.now()
        while !Task.isCancelled {
            guard let current = live[component] else { return }
            do {
                try await clock.sleep(until: last + Double(current.heartbeatSeconds))
            } catch {
                return
            }
            guard phase == .delivered, !Task.isCancelled, let session = live[component]?.sessionID else { return }
            last = clock.now()
            do throws(PlaybackError) {
                try await service.heartbeat(sessionID: session)
            } catch {
                // The session was being renewed (or already was): its successor decides.
                if renewing.contains(component) || live[component]?.sessionID != session { continue }
                guard let failure = Self.heartbeatFailure(error) else { continue }
                await fail(failure)
                return
            }
        }
    }

    /// What a failed heartbeat means for the playback: a denial (404) is the end of the media
    /// session, a refused token or a malformed answer fails it as is, and anything else is
    /// transient (nil: the next heartbeat or the lease decides).
    static func heartbeatFailure(_ error: PlaybackError) -> PlaybackError? {
        switch error.code {
        case .denied: PlaybackError(.sessionEnded, "the key service ended the media session", status: error.status)
        case .unauthorized, .malformed: error
        default: nil
        }
    }

    private func fail(_ error: PlaybackError) async {
        guard phase == .acquiring || phase == .delivered else { return }
        phase = .failed
        validity.fail(error)
        await endEverything()
    }

    private func endEverything() async {
        for timer in timers { timer.cancel() }
        timers.removeAll()
        let sessions = openSessions
        openSessions.removeAll()
        await Self.endUncancellably(sessions, service: service)
    }

    private func end(_ sessionID: String) async {
        guard let index = openSessions.firstIndex(of: sessionID) else { return }
        openSessions.remove(at: index)
        await Self.endUncancellably([sessionID], service: service)
    }

    /// Ending a session is never cancelled with the work that asked for it (an unstructured task
    /// does not inherit cancellation, and a cancelled transfer is aborted): the KAS must hear the
    /// DELETE, or the session holds a concurrency slot until it times out.
    private static func endUncancellably(_ sessions: [String], service: any MediaKeyService) async {
        guard !sessions.isEmpty else { return }
        await Task {
            await withTaskGroup(of: Void.self) { group in
                for id in sessions {
                    group.addTask { try? await service.endSession(sessionID: id) }
                }
            }
        }.value
    }
}
