import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// Checks of single configuration values. `source` names where the value came from (a file
/// key such as `'limits.maxBodyBytes' in kas.json`, an environment variable, a flag).
enum ConfigValue {
    struct IntegerSetting {
        let fileSection: String?
        let fileKey: String
        let environment: String
        let keyPath: WritableKeyPath<KASConfiguration.Overrides, Int?>
        let range: ClosedRange<Int>
    }

    /// The integer settings: where each lives in the file and the environment, and its range.
    static var integerSettings: [IntegerSetting] {
        [
            IntegerSetting(fileSection: "limits", fileKey: "maxBodyBytes", environment: "KAS_MAX_BODY_BYTES",
                           keyPath: \.maxBodyBytes, range: 1024...(1 << 30)),
            IntegerSetting(fileSection: "limits", fileKey: "maxConnections", environment: "KAS_MAX_CONNECTIONS",
                           keyPath: \.maxConnections, range: 1...100_000),
            IntegerSetting(fileSection: "limits", fileKey: "maxConnectionsPerIP", environment: "KAS_MAX_CONNECTIONS_PER_IP",
                           keyPath: \.maxConnectionsPerIP, range: 1...100_000),
            IntegerSetting(fileSection: "limits", fileKey: "requestTimeoutSeconds", environment: "KAS_REQUEST_TIMEOUT_SECONDS",
                           keyPath: \.requestTimeoutSeconds, range: 1...3600),
            IntegerSetting(fileSection: "limits", fileKey: "requestDeadlineSeconds", environment: "KAS_REQUEST_DEADLINE_SECONDS",
                           keyPath: \.requestDeadlineSeconds, range: 1...3600),
            IntegerSetting(fileSection: "limits", fileKey: "reservedConnections", environment: "KAS_RESERVED_CONNECTIONS",
                           keyPath: \.reservedConnections, range: 0...100_000),
            IntegerSetting(fileSection: "limits", fileKey: "rewrapRequestsPerMinute", environment: "KAS_REWRAP_REQUESTS_PER_MINUTE",
                           keyPath: \.rewrapRequestsPerMinute, range: 1...1_000_000),
            IntegerSetting(fileSection: nil, fileKey: "leaseSeconds", environment: "KAS_LEASE_SECONDS",
                           keyPath: \.leaseSeconds, range: 1...31_536_000),
            IntegerSetting(fileSection: "rateLimits", fileKey: "keyRequestsPerMinute", environment: "KAS_KEY_REQUESTS_PER_MINUTE",
                           keyPath: \.keyRequestsPerMinute, range: 1...1_000_000),
            IntegerSetting(fileSection: "rateLimits", fileKey: "sessionStartsPerMinute", environment: "KAS_SESSION_STARTS_PER_MINUTE",
                           keyPath: \.sessionStartsPerMinute, range: 1...1_000_000),
            IntegerSetting(fileSection: "rateLimits", fileKey: "playbackStartsPerMinute", environment: "KAS_PLAYBACK_STARTS_PER_MINUTE",
                           keyPath: \.playbackStartsPerMinute, range: 1...1_000_000),
            IntegerSetting(fileSection: "media", fileKey: "heartbeatSeconds", environment: "KAS_HEARTBEAT_SECONDS",
                           keyPath: \.heartbeatSeconds, range: 1...86_400),
            IntegerSetting(fileSection: "media", fileKey: "sessionTimeoutSeconds", environment: "KAS_SESSION_TIMEOUT_SECONDS",
                           keyPath: \.sessionTimeoutSeconds, range: 1...604_800),
            IntegerSetting(fileSection: "media", fileKey: "maxLiveSessionsPerViewer", environment: "KAS_MAX_LIVE_SESSIONS_PER_VIEWER",
                           keyPath: \.maxLiveSessionsPerViewer, range: 1...100_000),
            IntegerSetting(fileSection: "media", fileKey: "liveKeyPeriodSeconds", environment: "KAS_LIVE_KEY_PERIOD_SECONDS",
                           keyPath: \.liveKeyPeriodSeconds, range: 1...Int(MediaRules.maxLivePeriodSeconds)),
            IntegerSetting(fileSection: "media", fileKey: "livePeriodLeadSeconds", environment: "KAS_LIVE_PERIOD_LEAD_SECONDS",
                           keyPath: \.livePeriodLeadSeconds, range: 1...31_536_000),
            IntegerSetting(fileSection: "media", fileKey: "liveDVRSeconds", environment: "KAS_LIVE_DVR_SECONDS",
                           keyPath: \.liveDVRSeconds, range: 0...31_536_000),
            IntegerSetting(fileSection: "media", fileKey: "auditMaxBytes", environment: "KAS_AUDIT_MAX_BYTES",
                           keyPath: \.auditMaxBytes, range: 1024...(1 << 40)),
            IntegerSetting(fileSection: "media", fileKey: "auditKeepFiles", environment: "KAS_AUDIT_KEEP_FILES",
                           keyPath: \.auditKeepFiles, range: 1...1000),
            IntegerSetting(fileSection: "fairplay", fileKey: "timeoutSeconds", environment: "KAS_FAIRPLAY_TIMEOUT_SECONDS",
                           keyPath: \.fairPlayTimeoutSeconds, range: KASConfiguration.FairPlaySettings.timeoutRange),
            IntegerSetting(fileSection: "delivery", fileKey: "mediaURLMarginSeconds", environment: "KAS_MEDIA_URL_MARGIN_SECONDS",
                           keyPath: \.mediaURLMarginSeconds, range: 1...86_400),
            IntegerSetting(fileSection: "delivery", fileKey: "licenseURLSeconds", environment: "KAS_LICENSE_URL_SECONDS",
                           keyPath: \.licenseURLSeconds, range: 1...3600),
            IntegerSetting(fileSection: "delivery", fileKey: "processSPCURLSeconds", environment: "KAS_PROCESS_SPC_URL_SECONDS",
                           keyPath: \.processSPCURLSeconds, range: 1...3600),
            IntegerSetting(fileSection: "delivery", fileKey: "maxLivePlaybacksPerViewer",
                           environment: "KAS_MAX_LIVE_PLAYBACKS_PER_VIEWER", keyPath: \.maxLivePlaybacksPerViewer, range: 1...100_000),
            IntegerSetting(fileSection: "store", fileKey: "poolSize", environment: "KAS_STORE_POOL_SIZE",
                           keyPath: \.storePoolSize, range: KASConfiguration.StoreSettings.poolSizeRange),
            IntegerSetting(fileSection: "store", fileKey: "timeoutSeconds", environment: "KAS_STORE_TIMEOUT_SECONDS",
                           keyPath: \.storeTimeoutSeconds, range: KASConfiguration.StoreSettings.timeoutRange),
            IntegerSetting(fileSection: "store", fileKey: "maxEndedRecordsPerViewer",
                           environment: "KAS_STORE_MAX_ENDED_RECORDS_PER_VIEWER", keyPath: \.storeMaxEndedRecordsPerViewer,
                           range: 1...100_000),
            IntegerSetting(fileSection: "store", fileKey: "maxSessions", environment: "KAS_STORE_MAX_SESSIONS",
                           keyPath: \.storeMaxSessions, range: KASConfiguration.StoreSettings.recordBoundRange),
            IntegerSetting(fileSection: "store", fileKey: "maxPlaybacks", environment: "KAS_STORE_MAX_PLAYBACKS",
                           keyPath: \.storeMaxPlaybacks, range: KASConfiguration.StoreSettings.recordBoundRange),
        ]
    }

    static func invalid(_ source: String, _ expected: String) -> KASConfigurationError {
        KASConfigurationError(.invalidValue, "\(source) must be \(expected)")
    }

    static func listen(_ text: String, _ source: String) throws(KASConfigurationError) -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw invalid(source, "host:port (an IPv4 address, a host name or [IPv6], port 0-65535)")
        }
        return address
    }

    static func path(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        guard !text.isEmpty, !text.utf8.contains(0) else { throw invalid(source, "a non-empty path") }
        return text
    }

    /// An absolute http(s) URL without user info, query or fragment; a trailing '/' is dropped
    /// so the URL compares equal to what packagers write.
    static func url(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        let expected = "an http:// or https:// URL with a host and no query, fragment or user info"
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil,
              components.query == nil, components.fragment == nil,
              !text.contains(where: { $0.isWhitespace })
        else { throw invalid(source, expected) }
        var normalized = text
        while normalized.hasSuffix("/") { normalized.removeLast() }
        return normalized
    }

    /// The FairPlay SDK service URL: https, or plain http only to a loopback host (the SDK
    /// request carries content keys); no user info or fragment.
    static func sdkURL(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        let expected = "an https:// URL, or http:// to 127.0.0.1, [::1] or localhost, without user info or fragment"
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let rawHost = components.host, !rawHost.isEmpty,
              components.user == nil, components.password == nil, components.fragment == nil,
              !text.contains(where: { $0.isWhitespace })
        else { throw invalid(source, expected) }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard scheme == "https" || ["127.0.0.1", "::1", "localhost"].contains(host) else { throw invalid(source, expected) }
        return text
    }

    /// A JSON array of strings given as text (an environment variable holding an argument list).
    static func jsonStrings(_ text: String, _ source: String) throws(KASConfigurationError) -> [String] {
        guard case .array(let items)? = try? JSONParser.parse(Data(text.utf8)) else {
            throw invalid(source, "a JSON array of strings")
        }
        var result: [String] = []
        for item in items {
            guard case .string(let value) = item, !value.utf8.contains(0) else { throw invalid(source, "a JSON array of strings") }
            result.append(value)
        }
        return result
    }

    static func urls(_ items: [String], _ source: String) throws(KASConfigurationError) -> [String] {
        guard !items.isEmpty else { throw invalid(source, "a non-empty list of URLs") }
        var result: [String] = []
        for (position, item) in items.enumerated() {
            result.append(try url(item, "\(source)[\(position)]"))
        }
        return result
    }

    static func bool(_ text: String, _ source: String) throws(KASConfigurationError) -> Bool {
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw invalid(source, "true or false")
        }
    }

    static func integer(_ text: String, _ source: String, _ range: ClosedRange<Int>) throws(KASConfigurationError) -> Int {
        guard !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let number = Int(text) else {
            throw invalid(source, "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return try checked(number, source, range)
    }

    static func checked(_ number: Int, _ source: String, _ range: ClosedRange<Int>) throws(KASConfigurationError) -> Int {
        guard range.contains(number) else {
            throw invalid(source, "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    static func proxies(_ items: [String], _ source: String) throws(KASConfigurationError) -> [String] {
        for (position, item) in items.enumerated() where !NetworkAddress.isAddressOrBlock(item) {
            throw invalid("\(source)[\(position)]", "an IPv4 or IPv6 address or CIDR block")
        }
        return items
    }

    /// An HTTP field name (RFC 9110 token), at most 64 characters.
    static func headerName(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || tokenSymbols.contains(byte)
        }) else { throw invalid(source, "an HTTP header name") }
        return text
    }

    /// An environment variable name: letters, digits and '_', not starting with a digit.
    static func environmentName(_ text: String, _ source: String) throws(KASConfigurationError) -> String {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              text.utf8.count <= 128, text.utf8.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
              })
        else { throw invalid(source, "an environment variable name") }
        return text
    }
}
