import MediaDRMJSON

extension KASConfiguration {
    /// The configuration in the file format, every key written (defaults included), so it can
    /// be read back as a configuration file. Secrets are never in it: HS256 issuers appear by
    /// file path or environment variable name, the store URL with its password masked (`***`;
    /// give the password by `KAS_STORE_PASSWORD` when reading such a file back).
    public var jsonValue: JSONValue {
        func number(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
        var members: [(String, JSONValue)] = [
            ("listen", .string(listen.description)),
            ("dataDir", .string(dataDirectory)),
            ("publicURL", .string(publicURL)),
            ("acceptedKASURLs", .array(acceptedKASURLs.map(JSONValue.string))),
        ]
        if let keyRingDirectory { members.append(("keyRingDir", .string(keyRingDirectory))) }
        if let keyRingSealKeyFile {
            members.append(("keyRing", .object(JSONObject([("sealKeyFile", .string(keyRingSealKeyFile))]))))
        }
        if let tls {
            members.append(("tlsCert", .string(tls.certificateFile)))
            members.append(("tlsKey", .string(tls.keyFile)))
        }
        members.append(("devIssuer", .bool(devIssuer)))
        members.append(("issuers", .array(issuers.map { issuer in
            var members: [(String, JSONValue)] = [
                ("issuer", .string(issuer.issuer)),
                ("audience", .array(issuer.audiences.map(JSONValue.string))),
            ]
            switch issuer.keySource {
            case .jwksFile(let path): members.append(("jwksFile", .string(path)))
            case .pemFile(let path): members.append(("pemFile", .string(path)))
            case .hs256SecretFile(let path): members.append(("hs256SecretFile", .string(path)))
            case .hs256SecretEnvironment(let name): members.append(("hs256SecretEnv", .string(name)))
            case .discovery(let discovery):
                members.append(("discovery", .bool(true)))
                if let caFile = discovery.caFile { members.append(("caFile", .string(caFile))) }
                members.append(("maxStaleSeconds", number(discovery.maxStaleSeconds)))
            }
            return .object(JSONObject(members))
        })))
        var limitMembers: [(String, JSONValue)] = [
            ("maxBodyBytes", number(limits.maxBodyBytes)),
            ("maxConnections", number(limits.maxConnections)),
            ("maxConnectionsPerIP", number(limits.maxConnectionsPerIP)),
            ("requestTimeoutSeconds", number(limits.requestTimeoutSeconds)),
            ("requestDeadlineSeconds", number(limits.requestDeadlineSeconds)),
        ]
        // Absent when not configured: the server's default applies (an eighth of maxConnections).
        if let reserved = limits.reservedConnections { limitMembers.append(("reservedConnections", number(reserved))) }
        limitMembers.append(("rewrapRequestsPerMinute", number(limits.rewrapRequestsPerMinute)))
        members.append(("limits", .object(JSONObject(limitMembers))))
        members.append(("leaseSeconds", number(leaseSeconds)))
        members.append(("rateLimits", .object(JSONObject([
            ("keyRequestsPerMinute", number(rateLimits.keyRequestsPerMinute)),
            ("sessionStartsPerMinute", number(rateLimits.sessionStartsPerMinute)),
            ("playbackStartsPerMinute", number(rateLimits.playbackStartsPerMinute)),
        ]))))
        members.append(("trustedProxies", .array(trustedProxies.map(JSONValue.string))))
        if let regionHeader { members.append(("regionHeader", .string(regionHeader))) }
        members.append(("media", .object(JSONObject([
            ("heartbeatSeconds", number(media.heartbeatSeconds)),
            ("sessionTimeoutSeconds", number(media.sessionTimeoutSeconds)),
            ("maxLiveSessionsPerViewer", number(media.maxLiveSessionsPerViewer)),
            ("liveKeyPeriodSeconds", number(media.liveKeyPeriodSeconds)),
            ("livePeriodLeadSeconds", number(media.livePeriodLeadSeconds)),
            ("liveDVRSeconds", number(media.liveDVRSeconds)),
            ("auditMaxBytes", number(media.auditMaxBytes)),
            ("auditKeepFiles", number(media.auditKeepFiles)),
        ]))))
        if let fairPlay {
            var section: [(String, JSONValue)] = [("certificateFile", .string(fairPlay.certificateFile))]
            switch fairPlay.transport {
            case .command(let executable, let arguments):
                section.append(("sdkCommand", .string(executable)))
                section.append(("sdkArguments", .array(arguments.map(JSONValue.string))))
            case .url(let url):
                section.append(("sdkURL", .string(url)))
            }
            section.append(("timeoutSeconds", number(fairPlay.timeoutSeconds)))
            members.append(("fairplay", .object(JSONObject(section))))
        }
        var webSection: [(String, JSONValue)] = [("enabled", .bool(web.enabled))]
        if let root = web.root { webSection.append(("root", .string(root))) }
        members.append(("web", .object(JSONObject(webSection))))
        members.append(("cors", .object(JSONObject([("allowedOrigins", .array(web.allowedOrigins.map(JSONValue.string)))]))))
        var deliverySection: [(String, JSONValue)] = []
        if let url = delivery.originURL { deliverySection.append(("originURL", .string(url))) }
        if let file = delivery.originSecretFile { deliverySection.append(("originSecretFile", .string(file))) }
        if let file = delivery.deliverySecretFile { deliverySection.append(("deliverySecretFile", .string(file))) }
        deliverySection.append(("mediaURLMarginSeconds", number(delivery.mediaURLMarginSeconds)))
        deliverySection.append(("licenseURLSeconds", number(delivery.licenseURLSeconds)))
        deliverySection.append(("processSPCURLSeconds", number(delivery.processSPCURLSeconds)))
        deliverySection.append(("maxLivePlaybacksPerViewer", number(delivery.maxLivePlaybacksPerViewer)))
        if !delivery.backendClients.isEmpty {
            // The secret stays in its file: only the file's path is shown.
            deliverySection.append(("backendClients", .array(delivery.backendClients.map { client in
                .object(JSONObject([("id", .string(client.id)), ("secretFile", .string(client.secretFile)),
                                    ("issuer", .string(client.issuer)), ("callsPerMinute", number(client.callsPerMinute))]))
            })))
        }
        deliverySection.append(("signedCertificateURL", .bool(delivery.signedCertificateURL)))
        if let url = delivery.titlePageBaseURL { deliverySection.append(("titlePageBaseURL", .string(url))) }
        if let tenant = delivery.tenantID { deliverySection.append(("tenantID", .string(tenant))) }
        members.append(("delivery", .object(JSONObject(deliverySection))))
        var storeSection: [(String, JSONValue)] = []
        if let url = store.url { storeSection.append(("url", .string(url.redacted))) }
        if let size = store.poolSize { storeSection.append(("poolSize", number(size))) }
        storeSection.append(("timeoutSeconds", number(store.timeoutSeconds)))
        storeSection.append(("maxEndedRecordsPerViewer", number(store.maxEndedRecordsPerViewer)))
        storeSection.append(("maxSessions", number(store.maxSessions)))
        storeSection.append(("maxPlaybacks", number(store.maxPlaybacks)))
        members.append(("store", .object(JSONObject(storeSection))))
        members.append(("node", .string(node)))
        return .object(JSONObject(members))
    }
}
