// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// The media service's settings. The app assembly fills them from `KASConfiguration`
/// (`acceptedKASURLs`, `leaseSeconds`, `rateLimits.*`, `media.*`) and the
/// FairPlay deployment files. A request's region is not here: the route adapters read it from
/// the request (`TrustedRegionSource`) and hand it to the service as a value.
package struct MediaServiceConfiguration: Sendable {
    /// KAS URLs key access objects may name (normalised per fps-v2 §5.2).
    public var acceptedKASURLs: [String]
    /// `metadata.lease_seconds` and the CKC `lease-duration`.
    public var leaseSeconds: Int = 3600
    /// How often clients are asked to send a heartbeat.
    public var heartbeatSeconds: Int = 60
    /// A session not heard from for this long has expired and frees its concurrency slot.
    public var sessionTimeoutSeconds: Int = 180
    /// Key requests per viewer per minute; more get 429 with Retry-After.
    public var keyRequestsPerMinute: Int = 60
    /// Session starts per viewer per minute (`ViewerRateLimit.sessionStart`).
    public var sessionStartsPerMinute: Int = 60
    /// Playback starts per viewer per minute (`ViewerRateLimit.playbackStart`), counted by the
    /// delivery service in the media store's buckets.
    public var playbackStartsPerMinute: Int = 30
    /// The playback limit for an asset whose policy declared none yet seen (nil: none).
    public var defaultMaxConcurrentStreams: Int?
    /// Live sessions one viewer may hold over all assets (a bound on session flooding).
    public var maxLiveSessionsPerViewer: Int = 32
    /// The FairPlay application certificate bundle (DER, served as is); nil answers 404.
    public var certificate: Data?
    /// The CKC `hdcp-type` (fps-v2 §10.7: 1 for both kinds); a policy may not lower it.
    public var fairPlayHDCPType: Int = 1
    public var keyCacheCapacity: Int = 1024
    public var keyCacheTimeToLive: TimeInterval = 300
    /// Ended and expired sessions are deleted this long after they stopped.
    public var sessionRetention: TimeInterval = 86_400
    /// The bounds of live key periods around the clock (`media.liveKeyPeriodSeconds`,
    /// `media.livePeriodLeadSeconds`, `media.liveDVRSeconds`).
    package var livePeriods = LivePeriodSettings()

    public init(acceptedKASURLs: [String]) {
        self.acceptedKASURLs = acceptedKASURLs
    }
}

extension MediaServiceConfiguration {
    /// The settings `kas serve` reads (`acceptedKASURLs`, `leaseSeconds`, `rateLimits.*`,
    /// `media.*`). Stream defaults and the key cache keep their
    /// defaults; the FairPlay certificate comes from `KASConfiguration.fairPlay` in `KASApplication`.
    public init(kas configuration: KASConfiguration) {
        self.init(acceptedKASURLs: configuration.acceptedKASURLs)
        leaseSeconds = configuration.leaseSeconds
        keyRequestsPerMinute = configuration.rateLimits.keyRequestsPerMinute
        sessionStartsPerMinute = configuration.rateLimits.sessionStartsPerMinute
        playbackStartsPerMinute = configuration.rateLimits.playbackStartsPerMinute
        heartbeatSeconds = configuration.media.heartbeatSeconds
        sessionTimeoutSeconds = configuration.media.sessionTimeoutSeconds
        maxLiveSessionsPerViewer = configuration.media.maxLiveSessionsPerViewer
        livePeriods.keyPeriodSeconds = configuration.media.liveKeyPeriodSeconds
        livePeriods.leadSeconds = configuration.media.livePeriodLeadSeconds
        livePeriods.dvrSeconds = configuration.media.liveDVRSeconds
    }
}
