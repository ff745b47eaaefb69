import Foundation
import MediaDRMJSON

extension KASConfiguration {
    static let fileKeys: Set<String> = [
        "listen", "dataDir", "publicURL", "acceptedKASURLs", "tlsCert", "tlsKey", "devIssuer", "issuers",
        "limits", "leaseSeconds", "rateLimits", "trustedProxies", "regionHeader", "media", "fairplay",
        "web", "cors", "delivery", "store", "node", "keyRingDir", "keyRing",
    ]
    static let fairPlayKeys: Set<String> = ["certificateFile", "sdkCommand", "sdkArguments", "sdkURL", "timeoutSeconds"]
    static let issuerKeys: Set<String> = ["issuer", "audience", "jwksFile", "pemFile", "hs256SecretFile", "hs256SecretEnv",
                                          "discovery", "caFile", "maxStaleSeconds"]
    static let issuerKeySources = ["jwksFile", "pemFile", "hs256SecretFile", "hs256SecretEnv", "discovery"]
    /// Members that only an issuer with `discovery: true` may have.
    static let discoveryIssuerKeys = ["caFile", "maxStaleSeconds"]
    /// Largest configuration file read.
    static let maximumFileSize = 1 << 20

    /// Reads the configuration file at `path`; relative paths in it are resolved against its directory.
    public static func fileOverrides(path: String) throws(KASConfigurationError) -> Overrides {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? NSNumber, size.intValue > maximumFileSize {
                throw KASConfigurationError(.unreadableFile, "configuration file '\(path)' is larger than 1 MiB")
            }
            data = try Data(contentsOf: url)
        } catch {
            if let configurationError = error as? KASConfigurationError { throw configurationError }
            throw KASConfigurationError(.unreadableFile, "cannot read configuration file '\(path)'")
        }
        return try fileOverrides(bytes: Array(data), file: url.lastPathComponent,
                                 baseDirectory: url.deletingLastPathComponent().path)
    }

    /// Parses configuration file bytes. `file` names the file in messages; relative paths are
    /// resolved against `baseDirectory`.
    public static func fileOverrides(bytes: [UInt8], file: String, baseDirectory: String) throws(KASConfigurationError) -> Overrides {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw KASConfigurationError(.malformedJSON, "configuration file '\(file)' is not valid JSON: \(error.reason)")
        }
        guard case .object(let root) = parsed else {
            throw KASConfigurationError(.malformedJSON, "configuration file '\(file)' is not a JSON object")
        }
        try refuseUnknownKeys(root, file: file)
        let reader = FileReader(file: file, baseDirectory: baseDirectory)
        var layer = Overrides()
        if let value = root["listen"] { layer.listen = try ConfigValue.listen(reader.string(value, "listen"), reader.source("listen")) }
        if let value = root["dataDir"] { layer.dataDirectory = try reader.path(value, "dataDir") }
        if let value = root["keyRingDir"] { layer.keyRingDirectory = try reader.path(value, "keyRingDir") }
        if let value = root["publicURL"] { layer.publicURL = try ConfigValue.url(reader.string(value, "publicURL"), reader.source("publicURL")) }
        if let value = root["acceptedKASURLs"] {
            layer.acceptedKASURLs = try ConfigValue.urls(reader.strings(value, "acceptedKASURLs"), reader.source("acceptedKASURLs"))
        }
        if let value = root["tlsCert"] { layer.tlsCertificateFile = try reader.path(value, "tlsCert") }
        if let value = root["tlsKey"] { layer.tlsKeyFile = try reader.path(value, "tlsKey") }
        if let value = root["devIssuer"] {
            guard case .bool(let flag) = value else { throw ConfigValue.invalid(reader.source("devIssuer"), "true or false") }
            layer.devIssuer = flag
        }
        if let value = root["issuers"] { layer.issuers = try issuers(value, reader) }
        for section in ["limits", "rateLimits", "media", "fairplay", "web", "cors", "delivery", "store", "keyRing"] {
            if let value = root[section], value.object == nil {
                throw ConfigValue.invalid(reader.source(section), "an object")
            }
        }
        for setting in ConfigValue.integerSettings {
            let container: JSONObject? = setting.fileSection.map { root[$0]?.object ?? JSONObject() } ?? root
            let name = setting.fileSection.map { "\($0).\(setting.fileKey)" } ?? setting.fileKey
            guard let value = container?[setting.fileKey] else { continue }
            guard case .number(let number) = value, let integer = number.int64, let exact = Int(exactly: integer) else {
                throw ConfigValue.invalid(reader.source(name), "an integer from \(setting.range.lowerBound) to \(setting.range.upperBound)")
            }
            layer[keyPath: setting.keyPath] = try ConfigValue.checked(exact, reader.source(name), setting.range)
        }
        if let value = root["trustedProxies"] {
            layer.trustedProxies = try ConfigValue.proxies(reader.strings(value, "trustedProxies", allowEmpty: true),
                                                           reader.source("trustedProxies"))
        }
        if let value = root["regionHeader"] {
            layer.regionHeader = try ConfigValue.headerName(reader.string(value, "regionHeader"), reader.source("regionHeader"))
        }
        if let fairPlay = root["fairplay"]?.object {
            if let value = fairPlay["certificateFile"] {
                layer.fairPlayCertificateFile = try reader.path(value, "fairplay.certificateFile")
            }
            if let value = fairPlay["sdkCommand"] { layer.fairPlaySDKCommand = try reader.path(value, "fairplay.sdkCommand") }
            if let value = fairPlay["sdkArguments"] {
                layer.fairPlaySDKArguments = try reader.strings(value, "fairplay.sdkArguments", allowEmpty: true)
            }
            if let value = fairPlay["sdkURL"] {
                layer.fairPlaySDKURL = try ConfigValue.sdkURL(reader.string(value, "fairplay.sdkURL"), reader.source("fairplay.sdkURL"))
            }
        }
        if let web = root["web"]?.object {
            if let value = web["enabled"] {
                guard case .bool(let flag) = value else { throw ConfigValue.invalid(reader.source("web.enabled"), "true or false") }
                layer.webEnabled = flag
            }
            if let value = web["root"] { layer.webRoot = try reader.path(value, "web.root") }
        }
        if let delivery = root["delivery"]?.object {
            if let value = delivery["originURL"] {
                layer.originURL = try ConfigValue.url(reader.string(value, "delivery.originURL"), reader.source("delivery.originURL"))
            }
            if let value = delivery["originSecretFile"] { layer.originSecretFile = try reader.path(value, "delivery.originSecretFile") }
            if let value = delivery["deliverySecretFile"] {
                layer.deliverySecretFile = try reader.path(value, "delivery.deliverySecretFile")
            }
            if let value = delivery["backendClients"] { layer.backendClients = try backendClients(value, reader) }
            if let value = delivery["signedCertificateURL"] {
                guard case .bool(let flag) = value else {
                    throw ConfigValue.invalid(reader.source("delivery.signedCertificateURL"), "true or false")
                }
                layer.signedCertificateURL = flag
            }
            if let value = delivery["tenantID"] {
                let text = try reader.string(value, "delivery.tenantID")
                guard text.utf8.count <= KASConfiguration.DeliverySettings.maximumTenantIDBytes, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                    throw ConfigValue.invalid(reader.source("delivery.tenantID"), "printable ASCII without spaces, at most 128 bytes")
                }
                layer.tenantID = text
            }
            if let value = delivery["titlePageBaseURL"] {
                layer.titlePageBaseURL = try ConfigValue.url(reader.string(value, "delivery.titlePageBaseURL"),
                                                             reader.source("delivery.titlePageBaseURL"))
            }
        }
        if let value = root["store"]?.object?["url"] {
            layer.storeURL = try ConfigValue.storeURL(reader.string(value, "store.url"), reader.source("store.url"))
        }
        if let value = root["keyRing"]?.object?["sealKeyFile"] {
            layer.keyRingSealKeyFile = try reader.path(value, "keyRing.sealKeyFile")
        }
        if let value = root["node"] { layer.node = try ConfigValue.node(reader.string(value, "node"), reader.source("node")) }
        if let value = root["cors"]?.object?["allowedOrigins"] {
            layer.corsAllowedOrigins = try ConfigValue.origins(reader.strings(value, "cors.allowedOrigins", allowEmpty: true),
                                                               reader.source("cors.allowedOrigins"))
        }
        return layer
    }

    /// Refuses every key this version does not know, naming them all at once.
    private static func refuseUnknownKeys(_ root: JSONObject, file: String) throws(KASConfigurationError) {
        var unknown = root.keys.filter { !fileKeys.contains($0) }
        let sections: [(String, Set<String>)] = [
            ("limits", ["maxBodyBytes", "maxConnections", "maxConnectionsPerIP", "requestTimeoutSeconds",
                        "requestDeadlineSeconds", "reservedConnections", "rewrapRequestsPerMinute"]),
            ("rateLimits", ["keyRequestsPerMinute", "sessionStartsPerMinute", "playbackStartsPerMinute"]),
            ("media", ["heartbeatSeconds", "sessionTimeoutSeconds", "maxLiveSessionsPerViewer", "liveKeyPeriodSeconds",
                       "livePeriodLeadSeconds", "liveDVRSeconds", "auditMaxBytes", "auditKeepFiles"]),
            ("fairplay", fairPlayKeys),
            ("web", ["enabled", "root"]),
            ("cors", ["allowedOrigins"]),
            ("delivery", ["originURL", "originSecretFile", "deliverySecretFile", "mediaURLMarginSeconds", "licenseURLSeconds",
                          "processSPCURLSeconds",
                          "maxLivePlaybacksPerViewer", "backendClients", "signedCertificateURL",
                          "titlePageBaseURL", "tenantID"]),
            ("store", ["url", "poolSize", "timeoutSeconds", "maxEndedRecordsPerViewer", "maxSessions", "maxPlaybacks"]),
            ("keyRing", ["sealKeyFile"]),
        ]
        for (section, allowed) in sections {
            guard let object = root[section]?.object else { continue }
            unknown += object.keys.filter { !allowed.contains($0) }.map { "\(section).\($0)" }
        }
        if let items = root["issuers"]?.array {
            for (position, item) in items.enumerated() {
                guard let object = item.object else { continue }
                unknown += object.keys.filter { !issuerKeys.contains($0) }.map { "issuers[\(position)].\($0)" }
            }
        }
        guard unknown.isEmpty else {
            // Keys are the operator's own text, but capped so a huge key cannot flood the log.
            let names = unknown.map { "'\($0.prefix(64))'" }.joined(separator: ", ")
            throw KASConfigurationError(.unknownKey, "configuration file '\(file)' has unknown key\(unknown.count == 1 ? "" : "s") \(names)")
        }
    }

    /// `delivery.backendClients`: each an object of exactly `id`, `secretFile`, `issuer` and
    /// optionally `callsPerMinute` (`BackendClient`); ids distinct.
    private static func backendClients(_ value: JSONValue, _ reader: FileReader) throws(KASConfigurationError) -> [BackendClient] {
        let key = "delivery.backendClients"
        guard case .array(let items) = value else { throw ConfigValue.invalid(reader.source(key), "an array of backend client objects") }
        var clients: [BackendClient] = []
        for (position, item) in items.enumerated() {
            let prefix = "\(key)[\(position)]"
            guard case .object(let object) = item, object.keys.allSatisfy(["id", "secretFile", "issuer", "callsPerMinute"].contains)
            else { throw ConfigValue.invalid(reader.source(prefix), "an object of id, secretFile, issuer and callsPerMinute") }
            guard let idValue = object["id"], let fileValue = object["secretFile"], let issuerValue = object["issuer"] else {
                throw ConfigValue.invalid(reader.source(prefix), "an object with id, secretFile and issuer")
            }
            let id = try reader.string(idValue, prefix + ".id")
            guard BackendClient.isValidID(id), !clients.contains(where: { $0.id == id }) else {
                throw ConfigValue.invalid(reader.source(prefix + ".id"), "1 to 64 letters, digits, '.', '_' or '-', distinct")
            }
            var client = BackendClient(id: id, secretFile: try reader.path(fileValue, prefix + ".secretFile"),
                                       issuer: try reader.string(issuerValue, prefix + ".issuer"))
            if let perMinute = object["callsPerMinute"] {
                client.callsPerMinute = try reader.integer(perMinute, prefix + ".callsPerMinute", BackendClient.callsPerMinuteRange)
            }
            clients.append(client)
        }
        return clients
    }

    private static func issuers(_ value: JSONValue, _ reader: FileReader) throws(KASConfigurationError) -> [IssuerConfiguration] {
        guard case .array(let items) = value else { throw ConfigValue.invalid(reader.source("issuers"), "an array of issuer objects") }
        var result: [IssuerConfiguration] = []
        for (position, item) in items.enumerated() {
            let prefix = "issuers[\(position)]"
            guard case .object(let object) = item else { throw ConfigValue.invalid(reader.source(prefix), "an object") }
            guard let issuerValue = object["issuer"] else {
                throw KASConfigurationError(.missingValue, "\(reader.source(prefix)) has no 'issuer'")
            }
            let issuer = try reader.string(issuerValue, "\(prefix).issuer")
            guard !result.contains(where: { $0.issuer == issuer }) else {
                throw ConfigValue.invalid(reader.source("\(prefix).issuer"), "different from every other issuer")
            }
            guard let audienceValue = object["audience"] else {
                throw KASConfigurationError(.missingValue, "\(reader.source(prefix)) has no 'audience'")
            }
            let audiences: [String]
            if case .string = audienceValue {
                audiences = [try reader.string(audienceValue, "\(prefix).audience")]
            } else {
                audiences = try reader.strings(audienceValue, "\(prefix).audience")
            }
            let sources = issuerKeySources.filter { object[$0] != nil }
            guard sources.count == 1, let sourceKey = sources.first, let sourceValue = object[sourceKey] else {
                throw KASConfigurationError(
                    sources.isEmpty ? .missingValue : .conflict,
                    "\(reader.source(prefix)) must have exactly one of jwksFile, pemFile, hs256SecretFile, hs256SecretEnv, discovery")
            }
            if sourceKey != "discovery", let stray = discoveryIssuerKeys.first(where: { object[$0] != nil }) {
                throw KASConfigurationError(.conflict, "\(reader.source("\(prefix).\(stray)")) applies only with \"discovery\": true")
            }
            let keySource: IssuerConfiguration.KeySource
            switch sourceKey {
            case "jwksFile": keySource = .jwksFile(try reader.path(sourceValue, "\(prefix).jwksFile"))
            case "pemFile": keySource = .pemFile(try reader.path(sourceValue, "\(prefix).pemFile"))
            case "hs256SecretFile": keySource = .hs256SecretFile(try reader.path(sourceValue, "\(prefix).hs256SecretFile"))
            case "discovery": keySource = .discovery(try discovery(object, issuer: issuer, prefix: prefix, reader))
            default:
                keySource = .hs256SecretEnvironment(try ConfigValue.environmentName(
                    reader.string(sourceValue, "\(prefix).hs256SecretEnv"), reader.source("\(prefix).hs256SecretEnv")))
            }
            result.append(IssuerConfiguration(issuer: issuer, audiences: audiences, keySource: keySource))
        }
        return result
    }
}

extension KASConfiguration {
    /// An issuer's `discovery: true` with its `caFile` and `maxStaleSeconds`. The issuer must be
    /// an `https://` URL: its discovery document is fetched from it (OpenID Connect Discovery 1.0 §4).
    fileprivate static func discovery(_ object: JSONObject, issuer: String, prefix: String,
                                      _ reader: FileReader) throws(KASConfigurationError) -> OpenIDDiscovery {
        guard object["discovery"] == .bool(true) else {
            throw ConfigValue.invalid(reader.source("\(prefix).discovery"), "true (or leave it out and name a key file)")
        }
        guard HTTPSOrigin(issuer) != nil, URLComponents(string: issuer)?.query == nil,
              URLComponents(string: issuer)?.fragment == nil else {
            throw ConfigValue.invalid(reader.source("\(prefix).issuer"),
                                      "an https:// URL without user-info, query or fragment when discovery is true (plain http is refused)")
        }
        var settings = OpenIDDiscovery()
        if let value = object["caFile"] { settings.caFile = try reader.path(value, "\(prefix).caFile") }
        if let value = object["maxStaleSeconds"] {
            settings.maxStaleSeconds = try reader.integer(value, "\(prefix).maxStaleSeconds", OpenIDDiscovery.maxStaleSecondsRange)
        }
        return settings
    }
}

/// Typed reads of configuration file values with messages naming the key and the file.
private struct FileReader {
    let file: String
    let baseDirectory: String

    func source(_ key: String) -> String { "'\(key)' in \(file)" }

    func string(_ value: JSONValue, _ key: String) throws(KASConfigurationError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw ConfigValue.invalid(source(key), "a non-empty string")
        }
        return text
    }

    func strings(_ value: JSONValue, _ key: String, allowEmpty: Bool = false) throws(KASConfigurationError) -> [String] {
        let expected = allowEmpty ? "an array of non-empty strings" : "a non-empty array of non-empty strings"
        guard case .array(let items) = value, allowEmpty || !items.isEmpty else { throw ConfigValue.invalid(source(key), expected) }
        var result: [String] = []
        for item in items {
            guard case .string(let text) = item, !text.isEmpty else { throw ConfigValue.invalid(source(key), expected) }
            result.append(text)
        }
        return result
    }

    /// An integer within `range`.
    func integer(_ value: JSONValue, _ key: String, _ range: ClosedRange<Int>) throws(KASConfigurationError) -> Int {
        guard case .number(let number) = value, let integer = number.int64, let exact = Int(exactly: integer) else {
            throw ConfigValue.invalid(source(key), "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return try ConfigValue.checked(exact, source(key), range)
    }

    /// A path; relative ones are taken from the configuration file's directory.
    func path(_ value: JSONValue, _ key: String) throws(KASConfigurationError) -> String {
        let text = try ConfigValue.path(string(value, key), source(key))
        guard !text.hasPrefix("/") else { return text }
        return URL(fileURLWithPath: text, relativeTo: URL(fileURLWithPath: baseDirectory, isDirectory: true)).standardized.path
    }
}
