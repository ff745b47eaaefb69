import Foundation

/// Everything `kas serve` needs to know, from one JSON file, `KAS_*` environment variables and
/// command-line flags; precedence flags > environment > file > defaults. The file is parsed
/// with the strict JSON module (duplicate keys refused) and unknown keys are refused by name.
///
/// | File key | Environment | Flag | Default |
/// |---|---|---|---|
/// | `listen` "host:port" | `KAS_LISTEN` | `--listen` | `127.0.0.1:8443` |
/// | `dataDir` | `KAS_DATA_DIR` | `--data-dir` | `./kas-data` |
/// | `keyRingDir` (the directory whose `keys/` holds the key ring; nodes of a cluster share one) | `KAS_KEY_RING_DIR` | `--key-ring-dir` | `dataDir` |
/// | `keyRing.sealKeyFile` (the sealed key ring's 32-byte key-encryption key; docs/kas.md "Sealed key ring") | `KAS_KEY_RING_SEAL_KEY_FILE` | | none (`KAS_KEY_RING_SEAL_KEY`, then the credential `kas-seal-key`) |
/// | `publicURL` | `KAS_PUBLIC_URL` | `--public-url` | `http(s)://<listen>` (`127.0.0.1` for a wildcard host) |
/// | `acceptedKASURLs` [string] | `KAS_ACCEPTED_KAS_URLS` (comma-separated) | | `[publicURL]` |
/// | `tlsCert`, `tlsKey` (PEM paths, both or neither) | `KAS_TLS_CERT`, `KAS_TLS_KEY` | `--tls-cert`, `--tls-key` | none: plain HTTP |
/// | `devIssuer` bool | `KAS_DEV_ISSUER` (`true`/`false`) | | `true` |
/// | `issuers` [IssuerConfiguration] | | | `[]` |
/// | `limits.maxBodyBytes` | `KAS_MAX_BODY_BYTES` | | 2 MiB (1024 ... 1 GiB) |
/// | `limits.maxConnections` | `KAS_MAX_CONNECTIONS` | | 1024 (1 ... 100000) |
/// | `limits.maxConnectionsPerIP` | `KAS_MAX_CONNECTIONS_PER_IP` | | 64 (1 ... 100000) |
/// | `limits.requestTimeoutSeconds` | `KAS_REQUEST_TIMEOUT_SECONDS` | | 30 (1 ... 3600) |
/// | `limits.requestDeadlineSeconds` | `KAS_REQUEST_DEADLINE_SECONDS` | | 10 (1 ... 3600) |
/// | `limits.reservedConnections` (below `maxConnections`) | `KAS_RESERVED_CONNECTIONS` | | an eighth of `maxConnections`, at most 64 (0 ... 100000) |
/// | `limits.rewrapRequestsPerMinute` | `KAS_REWRAP_REQUESTS_PER_MINUTE` | | 120 (1 ... 1000000) |
/// | `leaseSeconds` | `KAS_LEASE_SECONDS` | | 3600 (1 ... 31536000) |
/// | `rateLimits.keyRequestsPerMinute` | `KAS_KEY_REQUESTS_PER_MINUTE` | | 60 (1 ... 1000000) |
/// | `rateLimits.sessionStartsPerMinute` | `KAS_SESSION_STARTS_PER_MINUTE` | | 60 (1 ... 1000000) |
/// | `rateLimits.playbackStartsPerMinute` | `KAS_PLAYBACK_STARTS_PER_MINUTE` | | 30 (1 ... 1000000) |
/// | `trustedProxies` [IP or CIDR] | `KAS_TRUSTED_PROXIES` (comma-separated) | | `[]` |
/// | `regionHeader` header name | `KAS_REGION_HEADER` | | none |
/// | `media.heartbeatSeconds` | `KAS_HEARTBEAT_SECONDS` | | 60 (1 ... 86400) |
/// | `media.sessionTimeoutSeconds` (at least the heartbeat) | `KAS_SESSION_TIMEOUT_SECONDS` | | 180 (1 ... 604800) |
/// | `media.maxLiveSessionsPerViewer` | `KAS_MAX_LIVE_SESSIONS_PER_VIEWER` | | 32 (1 ... 100000) |
/// | `media.liveKeyPeriodSeconds` (a live period's length when its policy has no `livePeriodSeconds`) | `KAS_LIVE_KEY_PERIOD_SECONDS` | | 600 (1 ... 31536000) |
/// | `media.livePeriodLeadSeconds` | `KAS_LIVE_PERIOD_LEAD_SECONDS` | | 600 (1 ... 31536000) |
/// | `media.liveDVRSeconds` | `KAS_LIVE_DVR_SECONDS` | | 600 (0 ... 31536000) |
/// | `media.auditMaxBytes` (rotation size) | `KAS_AUDIT_MAX_BYTES` | | 64 MiB (1024 ... 1 TiB) |
/// | `media.auditKeepFiles` (rotated files kept) | `KAS_AUDIT_KEEP_FILES` | | 5 (1 ... 1000) |
/// | `fairplay.certificateFile` (DER application certificate bundle) | `KAS_FAIRPLAY_CERTIFICATE_FILE` | | none: FairPlay off |
/// | `fairplay.sdkCommand` (executable speaking the SDK's JSON on stdin/stdout) | `KAS_FAIRPLAY_SDK_COMMAND` | | none |
/// | `fairplay.sdkArguments` [string] (with `sdkCommand` only) | `KAS_FAIRPLAY_SDK_ARGUMENTS` (a JSON array of strings) | | `[]` |
/// | `fairplay.sdkURL` (service wrapping the SDK; https, or http to loopback) | `KAS_FAIRPLAY_SDK_URL` | | none |
/// | `fairplay.timeoutSeconds` (one SDK call) | `KAS_FAIRPLAY_TIMEOUT_SECONDS` | | 10 (1 ... 300) |
/// | `delivery.*` (origin, its secret, delivery tokens, live playbacks per viewer) | `KAS_ORIGIN_URL`, ... | `--origin-url`, ... | see `DeliverySettings` |
/// | `store.url` `redis://[user:password@]host:port/db` | `KAS_STORE_URL` | `--store` | none: SQLite in the data directory |
/// | (the store's password, overriding the URL's) | `KAS_STORE_PASSWORD` | | the URL's |
/// | `store.poolSize` | `KAS_STORE_POOL_SIZE` | | the HTTP worker threads (1 ... 1024) |
/// | `store.timeoutSeconds` | `KAS_STORE_TIMEOUT_SECONDS` | | 2 (1 ... 60) |
/// | `store.maxEndedRecordsPerViewer` | `KAS_STORE_MAX_ENDED_RECORDS_PER_VIEWER` | | 64 (1 ... 100000) |
/// | `store.maxSessions` | `KAS_STORE_MAX_SESSIONS` | | 1000000 (1 ... 1000000000) |
/// | `store.maxPlaybacks` | `KAS_STORE_MAX_PLAYBACKS` | | 500000 (1 ... 1000000000) |
/// | `node` (this node's name in the audit log) | `KAS_NODE` | `--node` | the host name |
///
/// FairPlay is on when any `fairplay` setting is given; then `certificateFile` and exactly one
/// of `sdkCommand` and `sdkURL` are required (after merging the layers: a file `sdkCommand` and
/// an environment `KAS_FAIRPLAY_SDK_URL` conflict). The certificate and the command are checked
/// at start-up. The SDK's credentials (FPS private key, ASK) stay in the SDK's own
/// configuration; the KAS never reads them.
///
/// The configuration file itself comes from `--config` or `KAS_CONFIG`; without either there is
/// no file. Relative paths in the file (`dataDir`, `tlsCert`, `tlsKey`, issuer key files,
/// `fairplay.certificateFile`, `fairplay.sdkCommand`) are
/// resolved against the file's directory; relative paths from flags and the environment against
/// the working directory.
public struct KASConfiguration: Sendable, Equatable {
    /// Where the server listens. Port 0 picks a free port.
    public var listen: ListenAddress
    /// The data directory: the key ring (`keys/`), the state database, the audit log.
    public var dataDirectory: String
    /// The directory whose `keys/` holds the key ring, when it is not the data directory: several
    /// nodes sharing one Redis store read one key ring (docs/kas.md "Scale-out with Redis") while
    /// each keeps its own audit log. `kas serve` never generates a ring there.
    public var keyRingDirectory: String?
    /// Where the key ring is read: `keyRingDirectory`, else the data directory.
    public var keyRingHome: String { keyRingDirectory ?? dataDirectory }
    /// The file holding the key-encryption key of a sealed key ring (`KeyRingSealKey`); a path,
    /// never the key, so the configuration can be printed.
    public var keyRingSealKeyFile: String?
    /// The URL packagers write into key access objects (`kas.url`), without a trailing slash.
    public var publicURL: String
    /// Key access objects naming another URL are refused. Defaults to `[publicURL]`.
    public var acceptedKASURLs: [String]
    /// HTTPS from a PEM certificate chain and its private key; nil serves plain HTTP.
    public var tls: TLSFiles?
    /// Whether the key ring's dev token issuer (`kas token`) is trusted, when the ring has one.
    public var devIssuer: Bool
    /// Issuers whose bearer tokens are accepted.
    public var issuers: [IssuerConfiguration]
    public var limits: Limits
    /// The content-key lease handed to players (FairPlay `lease-duration`, `metadata.lease_seconds`).
    public var leaseSeconds: Int
    public var rateLimits: RateLimits
    /// Peers whose `X-Forwarded-For` / region header is believed (IP literals or CIDR blocks).
    public var trustedProxies: [String]
    /// The request header that carries the viewer's region (an ISO 3166 code set by a trusted
    /// proxy or CDN, e.g. `CF-IPCountry`); nil when regions come from elsewhere.
    public var regionHeader: String?
    /// Media session timing, the per-viewer session bound and the audit log's rotation.
    public var media: MediaSettings
    /// The FairPlay certificate and SDK transport; nil: no certificate (404) and FairPlay key
    /// requests answer 503.
    public var fairPlay: FairPlaySettings?
    /// The web player at `/player/` and cross-origin access (docs/web.md).
    public var web: WebSettings
    /// The catalog's origin, its signing secret and the delivery-API token key (docs/delivery.md).
    public var delivery: DeliverySettings
    /// Where sessions, first plays, licenses and the rest of the state live (SQLite or Redis).
    public var store: StoreSettings
    /// This node's name in the audit log.
    public var node: String

    public struct TLSFiles: Sendable, Equatable {
        /// PEM certificate chain, leaf first.
        public var certificateFile: String
        /// PEM private key of the leaf certificate.
        public var keyFile: String

        public init(certificateFile: String, keyFile: String) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    public struct Limits: Sendable, Equatable {
        /// Largest request body; larger ones get 413 from Content-Length before being read. The
        /// default fits a key request carrying a manifest of the fps-v2 maximum (1 MiB, base64
        /// in the body: 4/3 of it) with room for the rest of the request.
        public var maxBodyBytes: Int = 2 << 20
        /// Connections open at once, over all peers.
        public var maxConnections: Int = 1024
        /// Connections open at once from one IP address (for a trusted proxy: requests in
        /// progress per forwarded client).
        public var maxConnectionsPerIP: Int = 64
        /// A connection that sends or receives nothing for this long is closed.
        public var requestTimeoutSeconds: Int = 30
        /// A request must have arrived completely (line, headers, body) this long after its
        /// connection opened or the previous response on it was sent; otherwise the connection
        /// is closed, however steadily its bytes trickle in.
        public var requestDeadlineSeconds: Int = 10
        /// Connection slots kept for addresses holding fewer than 4 connections; nil (not
        /// configured): the server's default, an eighth of `maxConnections`, at most 64
        /// (`HTTPServerConfiguration.defaultReservedConnections`).
        public var reservedConnections: Int?
        /// OpenTDF rewrap requests (`/kas/v2/rewrap`, Connect `Rewrap`) per viewer per minute;
        /// a request counts once however many key access objects it carries.
        public var rewrapRequestsPerMinute: Int = 120

        public init() {}
    }

    public struct RateLimits: Sendable, Equatable {
        /// Media key requests (`/media/v1/key-request`) per viewer per minute; more get 429 +
        /// Retry-After. Rewraps have their own limit, `limits.rewrapRequestsPerMinute`.
        public var keyRequestsPerMinute: Int = 60
        /// `/media/v1/session/start` requests per viewer per minute; more get 429 + Retry-After.
        /// A start and an end at once hold no stream, so without it one viewer could leave
        /// ended sessions behind as fast as the store writes them.
        public var sessionStartsPerMinute: Int = 60
        /// `/media/v1/playback` requests per viewer per minute (the playback's own session is
        /// counted here, not as a session start); more get 429 + Retry-After.
        public var playbackStartsPerMinute: Int = 30

        public init() {}
    }

    public struct MediaSettings: Sendable, Equatable {
        /// How often players are asked to send a heartbeat (`heartbeatSeconds` in answers).
        public var heartbeatSeconds: Int = 60
        /// A session not heard from for this long expires and frees its concurrency slot.
        public var sessionTimeoutSeconds: Int = 180
        /// Live sessions one viewer may hold over all assets.
        public var maxLiveSessionsPerViewer: Int = 32
        /// A live key period's length for a segment whose policy has no `livePeriodSeconds` (packaged
        /// before the packager wrote it; docs/live.md).
        public var liveKeyPeriodSeconds: Int = 600
        /// A live key period may start at most this long after the clock.
        public var livePeriodLeadSeconds: Int = 600
        /// A live key period (and an event) is served this long after it ended.
        public var liveDVRSeconds: Int = 600
        /// `audit.log` is rotated when a line would take it past this size.
        public var auditMaxBytes: Int = 64 << 20
        /// Rotated audit files kept (`audit.log.1` ... `audit.log.N`).
        public var auditKeepFiles: Int = 5

        public init() {}
    }

    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 8443)
    public static let defaultDataDirectory = "./kas-data"

    /// The defaults: plain HTTP on 127.0.0.1:8443, data in ./kas-data.
    public init() {
        listen = Self.defaultListen
        dataDirectory = Self.defaultDataDirectory
        keyRingDirectory = nil
        keyRingSealKeyFile = nil
        publicURL = Self.derivedPublicURL(listen: Self.defaultListen, tls: false)
        acceptedKASURLs = [publicURL]
        tls = nil
        devIssuer = true
        issuers = []
        limits = Limits()
        leaseSeconds = 3600
        rateLimits = RateLimits()
        trustedProxies = []
        regionHeader = nil
        media = MediaSettings()
        fairPlay = nil
        web = WebSettings()
        delivery = DeliverySettings()
        store = StoreSettings()
        node = Self.defaultNode
    }

    /// `http(s)://host:port` of the listen address; a wildcard host becomes the loopback address.
    package static func derivedPublicURL(listen: ListenAddress, tls: Bool) -> String {
        var host = listen.host
        if host == "0.0.0.0" { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let authority = host.contains(":") ? "[\(host)]:\(listen.port)" : "\(host):\(listen.port)"
        return (tls ? "https://" : "http://") + authority
    }
}
