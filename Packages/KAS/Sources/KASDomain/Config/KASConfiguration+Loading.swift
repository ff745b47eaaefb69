import Foundation
import KASRedis
import MediaDRMJSON

extension KASConfiguration {
    /// One layer of settings (the file, the environment or the flags); nil means "not set here".
    public struct Overrides: Sendable, Equatable {
        public var listen: ListenAddress?
        public var dataDirectory: String?
        public var keyRingDirectory: String?
        public var keyRingSealKeyFile: String?
        public var publicURL: String?
        public var acceptedKASURLs: [String]?
        public var tlsCertificateFile: String?
        public var tlsKeyFile: String?
        public var devIssuer: Bool?
        public var issuers: [IssuerConfiguration]?
        public var maxBodyBytes: Int?
        public var maxConnections: Int?
        public var maxConnectionsPerIP: Int?
        public var requestTimeoutSeconds: Int?
        public var requestDeadlineSeconds: Int?
        public var reservedConnections: Int?
        public var rewrapRequestsPerMinute: Int?
        public var leaseSeconds: Int?
        public var keyRequestsPerMinute: Int?
        public var sessionStartsPerMinute: Int?
        public var playbackStartsPerMinute: Int?
        public var trustedProxies: [String]?
        public var regionHeader: String?
        public var heartbeatSeconds: Int?
        public var sessionTimeoutSeconds: Int?
        public var maxLiveSessionsPerViewer: Int?
        public var liveKeyPeriodSeconds: Int?
        public var livePeriodLeadSeconds: Int?
        public var liveDVRSeconds: Int?
        public var auditMaxBytes: Int?
        public var auditKeepFiles: Int?
        public var fairPlayCertificateFile: String?
        public var fairPlaySDKCommand: String?
        public var fairPlaySDKArguments: [String]?
        public var fairPlaySDKURL: String?
        public var fairPlayTimeoutSeconds: Int?
        public var webEnabled: Bool?
        public var webRoot: String?
        public var corsAllowedOrigins: [String]?
        public var originURL: String?
        public var originSecretFile: String?
        public var deliverySecretFile: String?
        public var mediaURLMarginSeconds: Int?
        public var licenseURLSeconds: Int?
        public var processSPCURLSeconds: Int?
        public var maxLivePlaybacksPerViewer: Int?
        public var backendClients: [BackendClient]?
        public var signedCertificateURL: Bool?
        public var titlePageBaseURL: String?
        public var tenantID: String?
        package var storeURL: RedisURL?
        public var storePassword: String?
        public var storePoolSize: Int?
        public var storeTimeoutSeconds: Int?
        public var storeMaxEndedRecordsPerViewer: Int?
        public var storeMaxSessions: Int?
        public var storeMaxPlaybacks: Int?
        public var node: String?

        public init() {}
    }

    /// The environment variables read, by the setting they override.
    public static let environmentVariables: [String] = [
        "KAS_CONFIG", "KAS_LISTEN", "KAS_DATA_DIR", "KAS_PUBLIC_URL", "KAS_ACCEPTED_KAS_URLS",
        "KAS_TLS_CERT", "KAS_TLS_KEY", "KAS_DEV_ISSUER", "KAS_MAX_BODY_BYTES", "KAS_MAX_CONNECTIONS",
        "KAS_MAX_CONNECTIONS_PER_IP", "KAS_REQUEST_TIMEOUT_SECONDS", "KAS_REQUEST_DEADLINE_SECONDS",
        "KAS_RESERVED_CONNECTIONS", "KAS_REWRAP_REQUESTS_PER_MINUTE", "KAS_LEASE_SECONDS",
        "KAS_KEY_REQUESTS_PER_MINUTE", "KAS_SESSION_STARTS_PER_MINUTE", "KAS_PLAYBACK_STARTS_PER_MINUTE",
        "KAS_TRUSTED_PROXIES", "KAS_REGION_HEADER",
        "KAS_HEARTBEAT_SECONDS", "KAS_SESSION_TIMEOUT_SECONDS", "KAS_MAX_LIVE_SESSIONS_PER_VIEWER",
        "KAS_LIVE_KEY_PERIOD_SECONDS", "KAS_LIVE_PERIOD_LEAD_SECONDS", "KAS_LIVE_DVR_SECONDS",
        "KAS_AUDIT_MAX_BYTES", "KAS_AUDIT_KEEP_FILES", "KAS_FAIRPLAY_CERTIFICATE_FILE", "KAS_FAIRPLAY_SDK_COMMAND",
        "KAS_FAIRPLAY_SDK_ARGUMENTS", "KAS_FAIRPLAY_SDK_URL", "KAS_FAIRPLAY_TIMEOUT_SECONDS",
        "KAS_ORIGIN_URL", "KAS_ORIGIN_SECRET_FILE", "KAS_DELIVERY_SECRET_FILE", "KAS_MEDIA_URL_MARGIN_SECONDS",
        "KAS_LICENSE_URL_SECONDS", "KAS_MAX_LIVE_PLAYBACKS_PER_VIEWER", "KAS_TITLE_PAGE_BASE_URL", "KAS_STORE_URL", "KAS_STORE_PASSWORD",
        "KAS_STORE_POOL_SIZE", "KAS_STORE_TIMEOUT_SECONDS", "KAS_STORE_MAX_ENDED_RECORDS_PER_VIEWER",
        "KAS_STORE_MAX_SESSIONS", "KAS_STORE_MAX_PLAYBACKS", "KAS_NODE", "KAS_KEY_RING_DIR",
        "KAS_KEY_RING_SEAL_KEY_FILE", "KAS_KEY_RING_SEAL_KEY",
    ]

    /// The configuration from defaults, then the file (`configFile`, else `KAS_CONFIG`, else
    /// none), then the environment, then the flags; derived defaults (`publicURL`,
    /// `acceptedKASURLs`) are filled in last from the merged result.
    public static func load(configFile: String? = nil, environment: [String: String] = [:],
                            flags: Overrides = Overrides()) throws(KASConfigurationError) -> KASConfiguration {
        var layers: [Overrides] = []
        let file = configFile ?? environment["KAS_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        if let file {
            layers.append(try fileOverrides(path: file))
        }
        layers.append(try environmentOverrides(environment))
        layers.append(flags)
        return try resolve(layers)
    }

    /// Merges layers in order (later wins) over the defaults and checks the result as a whole.
    public static func resolve(_ layers: [Overrides]) throws(KASConfigurationError) -> KASConfiguration {
        var merged = Overrides()
        for layer in layers { merged.merge(layer) }
        var configuration = KASConfiguration()
        if let value = merged.listen { configuration.listen = value }
        if let value = merged.dataDirectory { configuration.dataDirectory = value }
        configuration.keyRingDirectory = merged.keyRingDirectory
        configuration.keyRingSealKeyFile = merged.keyRingSealKeyFile
        if let value = merged.devIssuer { configuration.devIssuer = value }
        if let value = merged.issuers { configuration.issuers = value }
        if let value = merged.maxBodyBytes { configuration.limits.maxBodyBytes = value }
        if let value = merged.maxConnections { configuration.limits.maxConnections = value }
        if let value = merged.maxConnectionsPerIP { configuration.limits.maxConnectionsPerIP = value }
        if let value = merged.requestTimeoutSeconds { configuration.limits.requestTimeoutSeconds = value }
        if let value = merged.requestDeadlineSeconds { configuration.limits.requestDeadlineSeconds = value }
        configuration.limits.reservedConnections = merged.reservedConnections
        if let value = merged.rewrapRequestsPerMinute { configuration.limits.rewrapRequestsPerMinute = value }
        if let value = merged.leaseSeconds { configuration.leaseSeconds = value }
        if let value = merged.keyRequestsPerMinute { configuration.rateLimits.keyRequestsPerMinute = value }
        if let value = merged.sessionStartsPerMinute { configuration.rateLimits.sessionStartsPerMinute = value }
        if let value = merged.playbackStartsPerMinute { configuration.rateLimits.playbackStartsPerMinute = value }
        if let value = merged.trustedProxies { configuration.trustedProxies = value }
        if let value = merged.regionHeader { configuration.regionHeader = value }
        if let value = merged.heartbeatSeconds { configuration.media.heartbeatSeconds = value }
        if let value = merged.sessionTimeoutSeconds { configuration.media.sessionTimeoutSeconds = value }
        if let value = merged.maxLiveSessionsPerViewer { configuration.media.maxLiveSessionsPerViewer = value }
        if let value = merged.liveKeyPeriodSeconds { configuration.media.liveKeyPeriodSeconds = value }
        if let value = merged.livePeriodLeadSeconds { configuration.media.livePeriodLeadSeconds = value }
        if let value = merged.liveDVRSeconds { configuration.media.liveDVRSeconds = value }
        if let value = merged.auditMaxBytes { configuration.media.auditMaxBytes = value }
        if let value = merged.auditKeepFiles { configuration.media.auditKeepFiles = value }
        guard (configuration.limits.reservedConnections ?? 0) < configuration.limits.maxConnections else {
            throw KASConfigurationError(.conflict, "limits.reservedConnections must be below limits.maxConnections")
        }
        guard configuration.media.sessionTimeoutSeconds >= configuration.media.heartbeatSeconds else {
            throw KASConfigurationError(.conflict, "media.sessionTimeoutSeconds must be at least media.heartbeatSeconds")
        }
        switch (merged.tlsCertificateFile, merged.tlsKeyFile) {
        case (nil, nil):
            configuration.tls = nil
        case (let certificate?, let key?):
            configuration.tls = TLSFiles(certificateFile: certificate, keyFile: key)
        case (nil, _?):
            throw KASConfigurationError(.conflict, "a TLS key is configured without a TLS certificate (tlsCert)")
        case (_?, nil):
            throw KASConfigurationError(.conflict, "a TLS certificate is configured without its key (tlsKey)")
        }
        configuration.fairPlay = try fairPlaySettings(merged)
        if let value = merged.webEnabled { configuration.web.enabled = value }
        if let value = merged.webRoot { configuration.web.root = value }
        if let value = merged.corsAllowedOrigins { configuration.web.allowedOrigins = value }
        configuration.delivery.originURL = merged.originURL
        configuration.delivery.originSecretFile = merged.originSecretFile
        configuration.delivery.deliverySecretFile = merged.deliverySecretFile
        configuration.delivery.titlePageBaseURL = merged.titlePageBaseURL
        if let value = merged.mediaURLMarginSeconds { configuration.delivery.mediaURLMarginSeconds = value }
        if let value = merged.licenseURLSeconds { configuration.delivery.licenseURLSeconds = value }
        if let value = merged.processSPCURLSeconds { configuration.delivery.processSPCURLSeconds = value }
        if let value = merged.maxLivePlaybacksPerViewer { configuration.delivery.maxLivePlaybacksPerViewer = value }
        if let value = merged.backendClients { configuration.delivery.backendClients = value }
        if let value = merged.signedCertificateURL { configuration.delivery.signedCertificateURL = value }
        configuration.delivery.tenantID = merged.tenantID
        guard configuration.delivery.originSecretFile == nil || configuration.delivery.originURL != nil else {
            throw KASConfigurationError(.conflict, "delivery.originSecretFile (--origin-secret-file) is set without "
                                        + "delivery.originURL (--origin-url), the origin it signs media URLs for")
        }
        configuration.store = try storeSettings(merged)
        if let value = merged.node { configuration.node = value }
        configuration.publicURL = merged.publicURL
            ?? derivedPublicURL(listen: configuration.listen, tls: configuration.tls != nil)
        configuration.acceptedKASURLs = merged.acceptedKASURLs ?? [configuration.publicURL]
        return configuration
    }

    /// The `store` settings as a whole: the password from `KAS_STORE_PASSWORD` replaces the
    /// URL's, and needs a URL to go with.
    private static func storeSettings(_ merged: Overrides) throws(KASConfigurationError) -> StoreSettings {
        var settings = StoreSettings()
        settings.url = merged.storeURL
        if let password = merged.storePassword {
            guard settings.url != nil else {
                throw KASConfigurationError(.conflict, "KAS_STORE_PASSWORD is set without a store URL "
                                            + "(store.url, KAS_STORE_URL or --store): it is the password of the Redis store")
            }
            settings.url?.password = password
        }
        if let url = settings.url, let user = url.user, url.password == nil {
            throw KASConfigurationError(.missingValue, "the store URL \(url.redacted) names user '\(user.prefix(64))' without a password: "
                                        + "add it to the URL or set KAS_STORE_PASSWORD")
        }
        settings.poolSize = merged.storePoolSize
        if let value = merged.storeTimeoutSeconds { settings.timeoutSeconds = value }
        if let value = merged.storeMaxEndedRecordsPerViewer { settings.maxEndedRecordsPerViewer = value }
        if let value = merged.storeMaxSessions { settings.maxSessions = value }
        if let value = merged.storeMaxPlaybacks { settings.maxPlaybacks = value }
        return settings
    }

    /// The `fairplay` settings as a whole: none set leaves FairPlay off; otherwise the
    /// certificate and exactly one SDK transport.
    private static func fairPlaySettings(_ merged: Overrides) throws(KASConfigurationError) -> FairPlaySettings? {
        guard merged.fairPlayCertificateFile != nil || merged.fairPlaySDKCommand != nil || merged.fairPlaySDKArguments != nil
            || merged.fairPlaySDKURL != nil || merged.fairPlayTimeoutSeconds != nil else { return nil }
        guard let certificate = merged.fairPlayCertificateFile else {
            throw KASConfigurationError(.missingValue, "fairplay.certificateFile (KAS_FAIRPLAY_CERTIFICATE_FILE) is required when FairPlay is configured")
        }
        let transport: FairPlaySettings.SDKTransport
        switch (merged.fairPlaySDKCommand, merged.fairPlaySDKURL) {
        case (nil, nil):
            throw KASConfigurationError(.missingValue, "FairPlay needs one SDK transport: fairplay.sdkCommand or fairplay.sdkURL")
        case (_?, _?):
            throw KASConfigurationError(.conflict, "fairplay.sdkCommand and fairplay.sdkURL are both set: configure exactly one SDK transport")
        case (let command?, nil):
            transport = .command(executable: command, arguments: merged.fairPlaySDKArguments ?? [])
        case (nil, let url?):
            guard merged.fairPlaySDKArguments == nil else {
                throw KASConfigurationError(.conflict, "fairplay.sdkArguments is set without fairplay.sdkCommand")
            }
            transport = .url(url)
        }
        return FairPlaySettings(certificateFile: certificate, transport: transport,
                                timeoutSeconds: merged.fairPlayTimeoutSeconds ?? FairPlaySettings.defaultTimeoutSeconds)
    }

    /// `KAS_*` variables that are set but not read (likely typos), except those an issuer names
    /// as its `hs256SecretEnv`. For a warning at startup.
    public static func unusedEnvironmentVariables(_ environment: [String: String],
                                                  configuration: KASConfiguration) -> [String] {
        let secrets = Set(configuration.issuers.compactMap { issuer -> String? in
            if case .hs256SecretEnvironment(let name) = issuer.keySource { return name }
            return nil
        })
        let known = Set(environmentVariables)
        return environment.keys.filter { $0.hasPrefix("KAS_") && !known.contains($0) && !secrets.contains($0) }.sorted()
    }

    // MARK: Environment

    public static func environmentOverrides(_ environment: [String: String]) throws(KASConfigurationError) -> Overrides {
        var layer = Overrides()
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        func list(_ name: String) -> [String]? {
            value(name).map { text in
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
        }
        if let text = value("KAS_LISTEN") { layer.listen = try ConfigValue.listen(text, "KAS_LISTEN") }
        if let text = value("KAS_DATA_DIR") { layer.dataDirectory = try ConfigValue.path(text, "KAS_DATA_DIR") }
        if let text = value("KAS_KEY_RING_DIR") { layer.keyRingDirectory = try ConfigValue.path(text, "KAS_KEY_RING_DIR") }
        if let text = value("KAS_KEY_RING_SEAL_KEY_FILE") {
            layer.keyRingSealKeyFile = try ConfigValue.path(text, "KAS_KEY_RING_SEAL_KEY_FILE")
        }
        if let text = value("KAS_PUBLIC_URL") { layer.publicURL = try ConfigValue.url(text, "KAS_PUBLIC_URL") }
        if let items = list("KAS_ACCEPTED_KAS_URLS") {
            layer.acceptedKASURLs = try ConfigValue.urls(items, "KAS_ACCEPTED_KAS_URLS")
        }
        if let text = value("KAS_TLS_CERT") { layer.tlsCertificateFile = try ConfigValue.path(text, "KAS_TLS_CERT") }
        if let text = value("KAS_TLS_KEY") { layer.tlsKeyFile = try ConfigValue.path(text, "KAS_TLS_KEY") }
        if let text = value("KAS_DEV_ISSUER") { layer.devIssuer = try ConfigValue.bool(text, "KAS_DEV_ISSUER") }
        for setting in ConfigValue.integerSettings {
            if let text = value(setting.environment) {
                layer[keyPath: setting.keyPath] = try ConfigValue.integer(text, setting.environment, setting.range)
            }
        }
        if let items = list("KAS_TRUSTED_PROXIES") {
            layer.trustedProxies = try ConfigValue.proxies(items, "KAS_TRUSTED_PROXIES")
        }
        if let text = value("KAS_REGION_HEADER") { layer.regionHeader = try ConfigValue.headerName(text, "KAS_REGION_HEADER") }
        if let text = value("KAS_FAIRPLAY_CERTIFICATE_FILE") {
            layer.fairPlayCertificateFile = try ConfigValue.path(text, "KAS_FAIRPLAY_CERTIFICATE_FILE")
        }
        if let text = value("KAS_FAIRPLAY_SDK_COMMAND") {
            layer.fairPlaySDKCommand = try ConfigValue.path(text, "KAS_FAIRPLAY_SDK_COMMAND")
        }
        if let text = value("KAS_FAIRPLAY_SDK_ARGUMENTS") {
            layer.fairPlaySDKArguments = try ConfigValue.jsonStrings(text, "KAS_FAIRPLAY_SDK_ARGUMENTS")
        }
        if let text = value("KAS_FAIRPLAY_SDK_URL") { layer.fairPlaySDKURL = try ConfigValue.sdkURL(text, "KAS_FAIRPLAY_SDK_URL") }
        if let text = value("KAS_ORIGIN_URL") { layer.originURL = try ConfigValue.url(text, "KAS_ORIGIN_URL") }
        if let text = value("KAS_ORIGIN_SECRET_FILE") { layer.originSecretFile = try ConfigValue.path(text, "KAS_ORIGIN_SECRET_FILE") }
        if let text = value("KAS_DELIVERY_SECRET_FILE") {
            layer.deliverySecretFile = try ConfigValue.path(text, "KAS_DELIVERY_SECRET_FILE")
        }
        if let text = value("KAS_TITLE_PAGE_BASE_URL") {
            layer.titlePageBaseURL = try ConfigValue.url(text, "KAS_TITLE_PAGE_BASE_URL")
        }
        if let text = value("KAS_STORE_URL") { layer.storeURL = try ConfigValue.storeURL(text, "KAS_STORE_URL") }
        if let text = value("KAS_STORE_PASSWORD") { layer.storePassword = text }
        if let text = value("KAS_NODE") { layer.node = try ConfigValue.node(text, "KAS_NODE") }
        return layer
    }

    // MARK: Flags

    /// The `kas serve` flags as a layer; a bad value is reported naming the flag.
    public static func flagOverrides(listen: String? = nil, dataDirectory: String? = nil, publicURL: String? = nil,
                                     tlsCertificateFile: String? = nil, tlsKeyFile: String? = nil, originURL: String? = nil,
                                     originSecretFile: String? = nil, deliverySecretFile: String? = nil,
                                     store: String? = nil, node: String? = nil,
                                     keyRingDirectory: String? = nil) throws(KASConfigurationError) -> Overrides {
        var layer = Overrides()
        if let listen { layer.listen = try ConfigValue.listen(listen, "--listen") }
        if let dataDirectory { layer.dataDirectory = try ConfigValue.path(dataDirectory, "--data-dir") }
        if let keyRingDirectory { layer.keyRingDirectory = try ConfigValue.path(keyRingDirectory, "--key-ring-dir") }
        if let publicURL { layer.publicURL = try ConfigValue.url(publicURL, "--public-url") }
        if let tlsCertificateFile { layer.tlsCertificateFile = try ConfigValue.path(tlsCertificateFile, "--tls-cert") }
        if let tlsKeyFile { layer.tlsKeyFile = try ConfigValue.path(tlsKeyFile, "--tls-key") }
        if let originURL { layer.originURL = try ConfigValue.url(originURL, "--origin-url") }
        if let originSecretFile { layer.originSecretFile = try ConfigValue.path(originSecretFile, "--origin-secret-file") }
        if let deliverySecretFile { layer.deliverySecretFile = try ConfigValue.path(deliverySecretFile, "--delivery-secret-file") }
        if let store { layer.storeURL = try ConfigValue.storeURL(store, "--store") }
        if let node { layer.node = try ConfigValue.node(node, "--node") }
        return layer
    }
}

extension KASConfiguration.Overrides {
    /// Takes every value `other` sets.
    mutating func merge(_ other: Self) {
        if let value = other.listen { listen = value }
        if let value = other.dataDirectory { dataDirectory = value }
        if let value = other.keyRingDirectory { keyRingDirectory = value }
        if let value = other.keyRingSealKeyFile { keyRingSealKeyFile = value }
        if let value = other.publicURL { publicURL = value }
        if let value = other.acceptedKASURLs { acceptedKASURLs = value }
        if let value = other.tlsCertificateFile { tlsCertificateFile = value }
        if let value = other.tlsKeyFile { tlsKeyFile = value }
        if let value = other.devIssuer { devIssuer = value }
        if let value = other.issuers { issuers = value }
        if let value = other.maxBodyBytes { maxBodyBytes = value }
        if let value = other.maxConnections { maxConnections = value }
        if let value = other.maxConnectionsPerIP { maxConnectionsPerIP = value }
        if let value = other.requestTimeoutSeconds { requestTimeoutSeconds = value }
        if let value = other.requestDeadlineSeconds { requestDeadlineSeconds = value }
        if let value = other.reservedConnections { reservedConnections = value }
        if let value = other.rewrapRequestsPerMinute { rewrapRequestsPerMinute = value }
        if let value = other.leaseSeconds { leaseSeconds = value }
        if let value = other.keyRequestsPerMinute { keyRequestsPerMinute = value }
        if let value = other.sessionStartsPerMinute { sessionStartsPerMinute = value }
        if let value = other.playbackStartsPerMinute { playbackStartsPerMinute = value }
        if let value = other.trustedProxies { trustedProxies = value }
        if let value = other.regionHeader { regionHeader = value }
        if let value = other.heartbeatSeconds { heartbeatSeconds = value }
        if let value = other.sessionTimeoutSeconds { sessionTimeoutSeconds = value }
        if let value = other.maxLiveSessionsPerViewer { maxLiveSessionsPerViewer = value }
        if let value = other.liveKeyPeriodSeconds { liveKeyPeriodSeconds = value }
        if let value = other.livePeriodLeadSeconds { livePeriodLeadSeconds = value }
        if let value = other.liveDVRSeconds { liveDVRSeconds = value }
        if let value = other.auditMaxBytes { auditMaxBytes = value }
        if let value = other.auditKeepFiles { auditKeepFiles = value }
        if let value = other.fairPlayCertificateFile { fairPlayCertificateFile = value }
        if let value = other.fairPlaySDKCommand { fairPlaySDKCommand = value }
        if let value = other.fairPlaySDKArguments { fairPlaySDKArguments = value }
        if let value = other.fairPlaySDKURL { fairPlaySDKURL = value }
        if let value = other.fairPlayTimeoutSeconds { fairPlayTimeoutSeconds = value }
        if let value = other.webEnabled { webEnabled = value }
        if let value = other.webRoot { webRoot = value }
        if let value = other.corsAllowedOrigins { corsAllowedOrigins = value }
        if let value = other.originURL { originURL = value }
        if let value = other.originSecretFile { originSecretFile = value }
        if let value = other.deliverySecretFile { deliverySecretFile = value }
        if let value = other.mediaURLMarginSeconds { mediaURLMarginSeconds = value }
        if let value = other.licenseURLSeconds { licenseURLSeconds = value }
        if let value = other.processSPCURLSeconds { processSPCURLSeconds = value }
        if let value = other.maxLivePlaybacksPerViewer { maxLivePlaybacksPerViewer = value }
        if let value = other.backendClients { backendClients = value }
        if let value = other.signedCertificateURL { signedCertificateURL = value }
        if let value = other.titlePageBaseURL { titlePageBaseURL = value }
        if let value = other.tenantID { tenantID = value }
        if let value = other.storeURL { storeURL = value }
        if let value = other.storePassword { storePassword = value }
        if let value = other.storePoolSize { storePoolSize = value }
        if let value = other.storeTimeoutSeconds { storeTimeoutSeconds = value }
        if let value = other.storeMaxEndedRecordsPerViewer { storeMaxEndedRecordsPerViewer = value }
        if let value = other.storeMaxSessions { storeMaxSessions = value }
        if let value = other.storeMaxPlaybacks { storeMaxPlaybacks = value }
        if let value = other.node { node = value }
    }
}
