import Foundation

/// How a playback reaches its key service.
public struct PlaybackConfiguration: Sendable {
    /// The key service origin (`--kas`); also the only key service URL admission accepts.
    public var keyServiceURL: String
    /// The viewer's bearer token.
    public var credential: Credential
    /// Transport for the key service and for remote sources (CA, pin, timeouts).
    public var client: HTTPClient
    public var clock: any PlaybackClock
    /// tdf-hls: segments per component whose keys one bulk rewrap fetches.
    public var segmentKeyLookahead: Int
    /// fps-v2: fetch the FairPlay certificate (no credential) after admission, before the
    /// sessions, and report it; Linux playback does not need it, Apple platforms do.
    public var fetchesCertificate: Bool = false
    /// A remote source's renewable URL (a playback's signed media URL, `DeliveredPlayback`):
    /// when set, a package or tdf-hls URL source is read through it instead of its fixed URL.
    public var mediaLocation: (any RenewableURL)?
    /// The KAS `playbackId` the fps-v2 media sessions join (a playback started with
    /// `POST /media/v1/playback`), so they take that playback's stream slot; a fresh one otherwise.
    public var playbackID: String?
    /// tdf-hls: which variant and audio rendition to present.
    public var renditionChoice = TDFHLSRenditionChoice()
    /// tdf-hls without `EXT-X-ENDLIST`: where to start, when to stop and the clocks (docs/live.md).
    public var live = LivePlayOptions()

    public init(keyServiceURL: String, credential: Credential, client: HTTPClient,
                clock: any PlaybackClock = SystemPlaybackClock(), segmentKeyLookahead: Int = 8) {
        self.keyServiceURL = keyServiceURL
        self.credential = credential
        self.client = client
        self.clock = clock
        self.segmentKeyLookahead = segmentKeyLookahead
    }
}
