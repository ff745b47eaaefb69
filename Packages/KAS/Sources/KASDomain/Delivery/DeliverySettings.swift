extension KASConfiguration {
    /// The delivery routes' settings (docs/delivery.md), the file's `delivery` section:
    ///
    /// ```json
    /// "delivery": {"originURL": "https://media.example.com", "originSecretFile": "origin-secret.conf",
    ///              "deliverySecretFile": "delivery.secret", "mediaURLMarginSeconds": 600, "licenseURLSeconds": 300}
    /// ```
    ///
    /// | File key | Environment | Flag | Default |
    /// |---|---|---|---|
    /// | `originURL` | `KAS_ORIGIN_URL` | `--origin-url` | none: media URLs are the plain `publicURL`-less paths, unsigned |
    /// | `originSecretFile` (nginx include, 0600) | `KAS_ORIGIN_SECRET_FILE` | `--origin-secret-file` | none (required with `originURL`) |
    /// | `deliverySecretFile` (HS256 key, 0600, 32+ bytes) | `KAS_DELIVERY_SECRET_FILE` | `--delivery-secret-file` | none: `/v2/media` takes bearer tokens only |
    /// | `mediaURLMarginSeconds` | `KAS_MEDIA_URL_MARGIN_SECONDS` | | 600 (1 ... 86400; below 600 only for tests) |
    /// | `licenseURLSeconds` | `KAS_LICENSE_URL_SECONDS` | | 300 (1 ... 3600) |
    /// | `processSPCURLSeconds` | `KAS_PROCESS_SPC_URL_SECONDS` | | 600 (1 ... 3600) |
    /// | `maxLivePlaybacksPerViewer` | `KAS_MAX_LIVE_PLAYBACKS_PER_VIEWER` | | 16 (1 ... 100000) |
    /// | `backendClients` (file only: `BackendClient`) | | | none: the backend playback route refuses every call |
    /// | `signedCertificateURL` (file only) | | | false: `/media/v1/certificate` is open to anyone |
    /// | `titlePageBaseURL` | `KAS_TITLE_PAGE_BASE_URL` | | none: the viewer page, `<publicURL>/player/#<mediaid>` |
    /// | `tenantID` (file only) | | | none: Cloud Video Kit's licence route refuses every brand |
    public struct DeliverySettings: Sendable, Equatable {
        /// Where nginx serves the catalogued packages: `scheme://host[:port]`.
        public var originURL: String?
        /// The origin secrets (`OriginSecret`), shared with nginx.
        public var originSecretFile: String?
        /// The HS256 key of delivery-API tokens (`GET /v2/media/{assetId}?token=`), used for nothing else.
        public var deliverySecretFile: String?
        /// A media URL lives the title's duration plus this.
        public var mediaURLMarginSeconds: Int = 600
        /// A FairPlay licence URL lives this long.
        public var licenseURLSeconds: Int = 300
        /// The delivery API's FairPlay `processSpcUrl` (a raw-SPC licence URL that starts its
        /// playback on its first SPC) lives this long.
        public var processSPCURLSeconds: Int = 600
        /// Playbacks one viewer may hold live (not released, not expired) at once; past it a
        /// playback start is refused 429 `too_many_playbacks`. A playback outlives its sessions
        /// (until its media URL's end plus the renewal grace), so this, not the session bound,
        /// is what stops one viewer from filling the playback store.
        public var maxLivePlaybacksPerViewer: Int = 16
        /// The customer backends that may start playbacks for their viewers (docs/delivery.md
        /// "DRM-X's backend call").
        public var backendClients: [BackendClient] = []
        /// When true, a FairPlay playback's `certificateUrl` is signed for that playback (valid
        /// `licenseURLSeconds`, refused after its release) and the open `/media/v1/certificate`
        /// answers 403 `certificate_url_unsigned`.
        public var signedCertificateURL = false
        /// Where a title's page is: the delivery API's `link` is this, `/` and the media id.
        /// Nil: the KAS's viewer page, `<publicURL>/player/#<mediaid>`.
        public var titlePageBaseURL: String?
        /// The one tenant (Cloud Video Kit's `brandGuid`) whose licence requests the KAS answers
        /// (docs/delivery.md "Cloud Video Kit"). Nil: every such request is refused `brand_refused`.
        public var tenantID: String?
        /// `tenantID` is at most this long.
        public static let maximumTenantIDBytes = 128

        public init() {}
    }
}
