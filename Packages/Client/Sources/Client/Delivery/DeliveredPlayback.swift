import Foundation
import Synchronization

/// A playback obtained from the key service's playback API, ready for `PlaybackSession`: the
/// grant, the source its media URL names (by the rule of `PlaybackSource`), and that URL as a
/// renewable `MediaURLLease`. `release()` ends it (docs/delivery.md).
///
/// ```swift
/// let api = PlaybackAPI(keyServiceURL: kas, client: client, credential: token)
/// let delivered = try await DeliveredPlayback.start(.deliveryDescription(url), api: api, clientPlatform: "linux")
/// var configuration = PlaybackConfiguration(keyServiceURL: kas, credential: token, client: client)
/// try delivered.configure(&configuration)
/// delivered.startKeepingAlive()
/// defer { Task { await delivered.release() } }
/// try await PlaybackSession(source: delivered.source, configuration: configuration).play(to: output)
/// ```
public final class DeliveredPlayback: Sendable {
    public let grant: PlaybackGrant
    public let source: PlaybackSource
    public let mediaURL: MediaURLLease
    private let api: PlaybackAPI
    private let released = Mutex(false)
    private let keepers = Mutex<[Task<Void, Never>]>([])

    /// The DRM system `player` plays: the open path (Linux has no FairPlay).
    public static let playerDRMSystem = DRMSystem.tdf

    init(grant: PlaybackGrant, api: PlaybackAPI, now: @escaping @Sendable () -> Double) throws(PlaybackError) {
        guard grant.drmSystem == Self.playerDRMSystem else {
            throw PlaybackError(.malformed, "the playback answer is for \(grant.drmSystem.rawValue), not the tdf that was asked")
        }
        _ = try DeliveryURL.checkOnKeyService(grant.releaseURL, field: "playback answer's releaseUrl", keyService: api.keyServiceURL)
        switch try PlaybackSource(argument: grant.mediaURL) {
        case .packageURL(let url): source = .packageURL(url)
        case .tdfHLSMasterURL(let url): source = .tdfHLSMasterURL(url)
        default: throw PlaybackError(.malformed, "the playback answer's mediaUrl is not an http(s) URL")
        }
        self.grant = grant
        self.api = api
        let playbackID = grant.playbackID
        mediaURL = MediaURLLease(url: grant.mediaURL, expiresAt: grant.mediaURLExpiresAt, now: now) { () throws(PlaybackError) in
            try api.renewMediaURL(playbackID: playbackID)
        }
    }

    /// Starts the playback `target` names: a delivery description is read and its source for
    /// the open path picked by DRM system (never by position), then that source's
    /// `playbackUrl` (on the key service) is asked; `--asset` asks `/media/v1/playback` at once.
    public static func start(_ target: PlaybackTarget, api: PlaybackAPI, clientPlatform: String,
                             now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) async throws(PlaybackError) -> DeliveredPlayback {
        let grant: PlaybackGrant
        switch target {
        case .asset(let assetID):
            grant = try await api.start(assetID: assetID, drmSystem: playerDRMSystem, clientPlatform: clientPlatform)
        case .deliveryDescription(let url):
            let description = try await api.describe(url)
            let source = try description.source(for: playerDRMSystem)
            grant = try await api.start(assetID: description.mediaID, drmSystem: playerDRMSystem, clientPlatform: clientPlatform,
                                        playbackURL: source.drm[playerDRMSystem]?["playbackUrl"])
        case .source:
            throw PlaybackError(.invalidArgument, "a package or stream source is played directly, without the playback API")
        }
        do {
            return try DeliveredPlayback(grant: grant, api: api, now: now)
        } catch {
            // Refused answers still created a playback: end it.
            try? await api.release(grant)
            throw error
        }
    }

    /// Points a configuration at this playback: the media URL lease and the KAS `playbackId`
    /// the media sessions join. The open path's keys come from the configuration's key service
    /// only (the one admission accepts): a grant whose `licenseUrl` names another is refused.
    public func configure(_ configuration: inout PlaybackConfiguration) throws(PlaybackError) {
        _ = try DeliveryURL.checkOnKeyService(grant.licenseURL, field: "playback answer's licenseUrl",
                                              keyService: configuration.keyServiceURL)
        configuration.mediaLocation = mediaURL
        configuration.playbackID = grant.playbackID
    }

    /// Keeps the playback going until `release()`:
    /// - renews the media URL when it is due even while no request is made (a slow transfer can
    ///   span the whole window between the renewal time and the expiry, and the key service
    ///   refuses to renew a playback whose last URL has expired);
    /// - keeps the playback's own media session alive with `POST heartbeatUrl` (bearer) every
    ///   `heartbeatInterval` seconds, stopping for good when the key service answers that the
    ///   session is gone (404) or refuses; without a `heartbeatUrl` on the key service nothing is
    ///   sent. The URL holds the session id: it is never printed.
    public func startKeepingAlive(heartbeatInterval: Double = 30, clock: any PlaybackClock = SystemPlaybackClock()) {
        let lease = mediaURL
        var tasks = [Task {
            while !Task.isCancelled {
                // A URL renewed only after a 403 is looked at again now and then.
                let wait = lease.secondsUntilRenewal ?? 30
                do {
                    try await clock.sleep(until: clock.now() + wait)
                    try await Blocking.run { lease.renewIfDue() }
                } catch {
                    return
                }
            }
        }]
        if let url = grant.heartbeatURL, DeliveryURL.isOnKeyService(url, keyService: api.keyServiceURL) {
            let api = self.api
            tasks.append(Task {
                var next = clock.now() + heartbeatInterval
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(until: next)
                    } catch {
                        return
                    }
                    next += heartbeatInterval
                    do throws(PlaybackError) {
                        try await api.heartbeat(url)
                    } catch {
                        if !error.isTransient { return }
                    }
                }
            })
        }
        let alreadyReleased = released.withLock { $0 }
        keepers.withLock { $0 += tasks }
        if alreadyReleased { for task in tasks { task.cancel() } }
    }

    /// `DELETE releaseUrl`, once: later calls do nothing. Best effort at the end of a playback,
    /// after a failure or a stop; returns the failure, if any, for the caller to report.
    @discardableResult
    public func release() async -> PlaybackError? {
        let first = released.withLock { (done: inout Bool) -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return nil }
        // No heartbeat or renewal may follow the release: the loops are over before the DELETE.
        for task in keepers.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        do {
            try await api.release(grant)
            return nil
        } catch {
            return error
        }
    }
}
