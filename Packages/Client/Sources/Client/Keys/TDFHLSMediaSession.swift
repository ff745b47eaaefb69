import Foundation

/// The one media session of a tdf-hls playback whose policy carries `arkavo:media`
/// (docs/protocol.md, `POST /media/v1/rewrap`): started for the asset (the policy uuid) and the
/// rendition played, its id sent with every bulk rewrap of the playback, kept alive with a
/// heartbeat every `heartbeatSeconds` as `ContentKeySession` keeps an fps-v2 session, and ended
/// by `stop()`. A heartbeat the service answers 404 (session ended or expired) fails `validity`,
/// which the output checks before each segment. Segment keys are fetched per batch through the
/// live session, so there is no lease to renew.
actor TDFHLSMediaSession {
    nonisolated let validity: KeyValidity
    nonisolated let playbackID: String

    private let service: any MediaKeyService
    private let assetID: String
    private let rendition: String
    private let clock: any PlaybackClock
    private let progress: (@Sendable (PlaybackEvent) -> Void)?
    private var sessionID: String?
    private var heartbeats: Task<Void, Never>?
    private var stopped = false

    init(service: any MediaKeyService, assetID: String, rendition: String, clock: any PlaybackClock,
         playbackID: String = ContentKeySession.makePlaybackID(), progress: (@Sendable (PlaybackEvent) -> Void)?) {
        self.service = service
        self.assetID = assetID
        self.rendition = rendition
        self.clock = clock
        self.playbackID = playbackID
        self.progress = progress
        self.validity = KeyValidity(clock: clock)
    }

    /// Starts the session and its heartbeats; returns the session id for the rewrap requests.
    func start() async throws(PlaybackError) -> String {
        guard !stopped else { throw PlaybackError(.stopped, "the playback was stopped") }
        let grant = try await service.startSession(MediaSessionRequest(assetID: assetID, playbackID: playbackID,
                                                                       component: rendition))
        sessionID = grant.sessionID
        if stopped {
            await end()
            throw PlaybackError(.stopped, "the playback was stopped")
        }
        progress?(.sessionStarted(component: rendition))
        heartbeats = Task { await self.heartbeatLoop(every: grant.heartbeatSeconds) }
        return grant.sessionID
    }

    /// Ends the session and its heartbeats. Safe to call more than once.
    func stop() async {
        stopped = true
        validity.fail(PlaybackError(.stopped, "the playback was stopped"))
        await end()
    }

    private func heartbeatLoop(every seconds: Int) async {
        var last = clock.now()
        while !Task.isCancelled {
            do {
                try await clock.sleep(until: last + Double(seconds))
            } catch {
                return
            }
            guard !stopped, let id = sessionID else { return }
            last = clock.now()
            do throws(PlaybackError) {
                try await service.heartbeat(sessionID: id)
            } catch {
                guard let failure = ContentKeySession.heartbeatFailure(error) else { continue }
                validity.fail(failure)
                await end()
                return
            }
        }
    }

    /// The DELETE is sent from an unstructured task, so a cancelled playback still frees its
    /// concurrency slot (as `ContentKeySession` ends its sessions).
    private func end() async {
        heartbeats?.cancel()
        heartbeats = nil
        guard let id = sessionID else { return }
        sessionID = nil
        let service = self.service
        await Task { try? await service.endSession(sessionID: id) }.value
    }
}
