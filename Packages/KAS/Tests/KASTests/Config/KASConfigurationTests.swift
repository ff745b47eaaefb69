import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMJSON
import Testing

extension ConfigTests {
    @Suite struct KASConfigurationTests {
        private func parse(_ json: String, file: String = "kas.json", base: String = "/etc/kas") throws -> KASConfiguration.Overrides {
            try KASConfiguration.fileOverrides(bytes: Array(json.utf8), file: file, baseDirectory: base)
        }

        @Test func defaultsServeALocalInstance() throws {
            let configuration = try KASConfiguration.load()
            #expect(configuration.listen == ListenAddress(host: "127.0.0.1", port: 8443))
            #expect(configuration.dataDirectory == "./kas-data")
            #expect(configuration.publicURL == "http://127.0.0.1:8443")
            #expect(configuration.acceptedKASURLs == ["http://127.0.0.1:8443"])
            #expect(configuration.tls == nil)
            #expect(configuration.devIssuer)
            #expect(configuration.issuers.isEmpty)
            #expect(configuration.limits.maxBodyBytes == 2 << 20)
            #expect(configuration.rateLimits.keyRequestsPerMinute == 60)
            #expect(configuration.rateLimits.sessionStartsPerMinute == 60)
            #expect(configuration.rateLimits.playbackStartsPerMinute == 30)
            #expect(configuration.delivery.maxLivePlaybacksPerViewer == 16)
            #expect(configuration.store.maxEndedRecordsPerViewer == 64)
            #expect(configuration.store.maxSessions == 1_000_000 && configuration.store.maxPlaybacks == 500_000)
            #expect(configuration.media == KASConfiguration.MediaSettings())
            #expect(configuration.media.heartbeatSeconds == 60 && configuration.media.sessionTimeoutSeconds == 180)
            #expect(configuration.leaseSeconds == 3600)
            #expect(configuration.regionHeader == nil)
        }

        @Test func aFullFileIsReadWithPathsRelativeToItsDirectory() throws {
            let layer = try parse("""
            {"listen": "0.0.0.0:9443", "dataDir": "data", "publicURL": "https://kas.example.com/",
             "acceptedKASURLs": ["https://kas.example.com", "https://old.example.com"],
             "tlsCert": "tls/cert.pem", "tlsKey": "/secrets/key.pem", "devIssuer": false,
             "issuers": [
               {"issuer": "https://idp.example.com", "audience": "https://kas.example.com", "jwksFile": "idp.json"},
               {"issuer": "rs", "audience": ["a", "b"], "pemFile": "rs.pem"},
               {"issuer": "hs-file", "audience": "a", "hs256SecretFile": "hs.bin"},
               {"issuer": "hs-env", "audience": "a", "hs256SecretEnv": "IDP_SECRET"},
               {"issuer": "https://login.example.com", "audience": "kas", "discovery": true},
               {"issuer": "https://sso.example.com/realm", "audience": "kas", "discovery": true, "caFile": "sso-ca.pem", "maxStaleSeconds": 600}
             ],
             "limits": {"maxBodyBytes": 65536, "maxConnections": 10, "maxConnectionsPerIP": 2, "requestTimeoutSeconds": 5},
             "leaseSeconds": 600, "rateLimits": {"keyRequestsPerMinute": 30, "sessionStartsPerMinute": 12, "playbackStartsPerMinute": 6},
             "delivery": {"maxLivePlaybacksPerViewer": 3},
             "store": {"maxEndedRecordsPerViewer": 8, "maxSessions": 5000, "maxPlaybacks": 2500},
             "trustedProxies": ["10.0.0.0/8", "::1", "192.168.1.1"], "regionHeader": "CF-IPCountry"}
            """)
            let configuration = try KASConfiguration.resolve([layer])
            #expect(configuration.listen == ListenAddress(host: "0.0.0.0", port: 9443))
            #expect(configuration.dataDirectory == "/etc/kas/data")
            #expect(configuration.publicURL == "https://kas.example.com")
            #expect(configuration.acceptedKASURLs == ["https://kas.example.com", "https://old.example.com"])
            #expect(configuration.tls == .init(certificateFile: "/etc/kas/tls/cert.pem", keyFile: "/secrets/key.pem"))
            #expect(!configuration.devIssuer)
            #expect(configuration.issuers == [
                IssuerConfiguration(issuer: "https://idp.example.com", audiences: ["https://kas.example.com"], keySource: .jwksFile("/etc/kas/idp.json")),
                IssuerConfiguration(issuer: "rs", audiences: ["a", "b"], keySource: .pemFile("/etc/kas/rs.pem")),
                IssuerConfiguration(issuer: "hs-file", audiences: ["a"], keySource: .hs256SecretFile("/etc/kas/hs.bin")),
                IssuerConfiguration(issuer: "hs-env", audiences: ["a"], keySource: .hs256SecretEnvironment("IDP_SECRET")),
                IssuerConfiguration(issuer: "https://login.example.com", audiences: ["kas"],
                                    keySource: .discovery(OpenIDDiscovery(caFile: nil, maxStaleSeconds: 21_600))),
                IssuerConfiguration(issuer: "https://sso.example.com/realm", audiences: ["kas"],
                                    keySource: .discovery(OpenIDDiscovery(caFile: "/etc/kas/sso-ca.pem", maxStaleSeconds: 600))),
            ])
            #expect(configuration.limits.maxBodyBytes == 65536)
            #expect(configuration.limits.maxConnections == 10)
            #expect(configuration.limits.maxConnectionsPerIP == 2)
            #expect(configuration.limits.requestTimeoutSeconds == 5)
            #expect(configuration.leaseSeconds == 600)
            #expect(configuration.rateLimits.keyRequestsPerMinute == 30)
            #expect(configuration.rateLimits.sessionStartsPerMinute == 12)
            #expect(configuration.rateLimits.playbackStartsPerMinute == 6)
            #expect(configuration.delivery.maxLivePlaybacksPerViewer == 3)
            #expect(configuration.store.maxEndedRecordsPerViewer == 8)
            #expect(configuration.store.maxSessions == 5000 && configuration.store.maxPlaybacks == 2500)
            #expect(configuration.trustedProxies == ["10.0.0.0/8", "::1", "192.168.1.1"])
            #expect(configuration.regionHeader == "CF-IPCountry")

            // The printed configuration reads back as the same configuration.
            let printed = JSONWriter.write(configuration.jsonValue)
            let reread = try KASConfiguration.resolve([
                KASConfiguration.fileOverrides(bytes: Array(printed), file: "printed.json", baseDirectory: "/elsewhere"),
            ])
            #expect(reread == configuration)
        }

        @Test func flagsBeatEnvironmentBeatFileBeatDefaults() throws {
            let temp = try TemporaryDirectory()
            let file = try temp.write("kas.json", """
            {"listen": "127.0.0.1:1001", "dataDir": "/file/data", "publicURL": "http://file.example",
             "leaseSeconds": 100, "regionHeader": "X-File-Region"}
            """)
            let environment = [
                "KAS_LISTEN": "127.0.0.1:2002", "KAS_DATA_DIR": "/env/data", "KAS_LEASE_SECONDS": "200",
            ]
            let flags = try KASConfiguration.flagOverrides(listen: "127.0.0.1:3003")
            let configuration = try KASConfiguration.load(configFile: file, environment: environment, flags: flags)
            #expect(configuration.listen.port == 3003)                     // flag over env and file
            #expect(configuration.dataDirectory == "/env/data")             // env over file
            #expect(configuration.leaseSeconds == 200)                      // env over file
            #expect(configuration.publicURL == "http://file.example")       // file over default
            #expect(configuration.regionHeader == "X-File-Region")
            #expect(configuration.limits.maxBodyBytes == 2 << 20)          // default
            #expect(configuration.acceptedKASURLs == ["http://file.example"])

            // KAS_CONFIG names the file when --config is absent; --config wins over it.
            let viaEnvironment = try KASConfiguration.load(environment: ["KAS_CONFIG": file])
            #expect(viaEnvironment.listen.port == 1001)
            let other = try temp.write("other.json", #"{"listen": "127.0.0.1:4004"}"#)
            #expect(try KASConfiguration.load(configFile: other, environment: ["KAS_CONFIG": file]).listen.port == 4004)
        }

        @Test func derivedDefaultsFollowTheMergedListenAndTLS() throws {
            let plain = try KASConfiguration.load(flags: KASConfiguration.flagOverrides(listen: "0.0.0.0:9000"))
            #expect(plain.publicURL == "http://127.0.0.1:9000")
            let tls = try KASConfiguration.load(flags: KASConfiguration.flagOverrides(
                listen: "[::]:8443", tlsCertificateFile: "c.pem", tlsKeyFile: "k.pem"))
            #expect(tls.publicURL == "https://[::1]:8443")
            #expect(tls.acceptedKASURLs == ["https://[::1]:8443"])
            let explicit = try KASConfiguration.load(environment: ["KAS_ACCEPTED_KAS_URLS": "https://a.example, https://b.example/"],
                                                     flags: KASConfiguration.flagOverrides(publicURL: "https://kas.example/"))
            #expect(explicit.publicURL == "https://kas.example")
            #expect(explicit.acceptedKASURLs == ["https://a.example", "https://b.example"])
        }

        @Test func bindingPortZeroMovesOnlyDerivedURLs() throws {
            let derived = try KASConfiguration.load(flags: KASConfiguration.flagOverrides(listen: "127.0.0.1:0"))
            let bound = derived.bound(toPort: 41000)
            #expect(bound.listen.port == 41000)
            #expect(bound.publicURL == "http://127.0.0.1:41000")
            #expect(bound.acceptedKASURLs == ["http://127.0.0.1:41000"])
            let explicit = try KASConfiguration.load(flags: KASConfiguration.flagOverrides(
                listen: "127.0.0.1:0", publicURL: "https://kas.example"))
            #expect(explicit.bound(toPort: 41000).publicURL == "https://kas.example")
            let fixed = try KASConfiguration.load()
            #expect(fixed.bound(toPort: 41000) == fixed)
        }

        @Test func everyEnvironmentVariableIsRead() throws {
            let configuration = try KASConfiguration.load(environment: [
                "KAS_LISTEN": "[::1]:7000", "KAS_DATA_DIR": "/d", "KAS_PUBLIC_URL": "https://p.example",
                "KAS_ACCEPTED_KAS_URLS": "https://p.example,https://q.example", "KAS_TLS_CERT": "/c.pem", "KAS_TLS_KEY": "/k.pem",
                "KAS_DEV_ISSUER": "false", "KAS_MAX_BODY_BYTES": "2048", "KAS_MAX_CONNECTIONS": "7",
                "KAS_REQUEST_DEADLINE_SECONDS": "4", "KAS_RESERVED_CONNECTIONS": "3", "KAS_REWRAP_REQUESTS_PER_MINUTE": "9",
                "KAS_MAX_CONNECTIONS_PER_IP": "3", "KAS_REQUEST_TIMEOUT_SECONDS": "9", "KAS_LEASE_SECONDS": "77",
                "KAS_KEY_REQUESTS_PER_MINUTE": "5", "KAS_TRUSTED_PROXIES": "10.1.0.0/16, fd00::/8", "KAS_REGION_HEADER": "X-Region",
                "KAS_HEARTBEAT_SECONDS": "20", "KAS_SESSION_TIMEOUT_SECONDS": "50", "KAS_MAX_LIVE_SESSIONS_PER_VIEWER": "4",
                "KAS_AUDIT_MAX_BYTES": "4096", "KAS_AUDIT_KEEP_FILES": "2",
                "KAS_FAIRPLAY_CERTIFICATE_FILE": "/fps.der", "KAS_FAIRPLAY_SDK_COMMAND": "/fps-sdk",
                "KAS_FAIRPLAY_SDK_ARGUMENTS": #"["-v"]"#, "KAS_FAIRPLAY_TIMEOUT_SECONDS": "4",
                "KAS_ORIGIN_URL": "http://127.0.0.1:8088", "KAS_ORIGIN_SECRET_FILE": "/origin.conf",
                "KAS_DELIVERY_SECRET_FILE": "/delivery.secret", "KAS_MEDIA_URL_MARGIN_SECONDS": "30",
                "KAS_LICENSE_URL_SECONDS": "60", "KAS_KEY_RING_DIR": "/shared",
                "KAS_SESSION_STARTS_PER_MINUTE": "11", "KAS_PLAYBACK_STARTS_PER_MINUTE": "7",
                "KAS_MAX_LIVE_PLAYBACKS_PER_VIEWER": "2", "KAS_STORE_MAX_ENDED_RECORDS_PER_VIEWER": "9",
                "KAS_STORE_MAX_SESSIONS": "900", "KAS_STORE_MAX_PLAYBACKS": "450",
                "KAS_KEY_RING_SEAL_KEY_FILE": "/seal.key",
                "KAS_LIVE_KEY_PERIOD_SECONDS": "6", "KAS_LIVE_PERIOD_LEAD_SECONDS": "2", "KAS_LIVE_DVR_SECONDS": "0",
                "KAS_TITLE_PAGE_BASE_URL": "https://www.example.com/watch/",
            ])
            // KAS_FAIRPLAY_SDK_URL excludes KAS_FAIRPLAY_SDK_COMMAND: FairPlayConfigurationTests reads it.
            #expect(configuration.fairPlay == .init(certificateFile: "/fps.der",
                                                    transport: .command(executable: "/fps-sdk", arguments: ["-v"]), timeoutSeconds: 4))
            #expect(configuration.media.heartbeatSeconds == 20)
            #expect(configuration.media.sessionTimeoutSeconds == 50)
            #expect(configuration.media.maxLiveSessionsPerViewer == 4)
            #expect(configuration.media.auditMaxBytes == 4096)
            #expect(configuration.media.auditKeepFiles == 2)
            #expect(configuration.media.liveKeyPeriodSeconds == 6 && configuration.media.livePeriodLeadSeconds == 2)
            #expect(configuration.media.liveDVRSeconds == 0)
            #expect(configuration.limits.requestDeadlineSeconds == 4)
            #expect(configuration.limits.reservedConnections == 3)
            #expect(configuration.limits.rewrapRequestsPerMinute == 9)
            #expect(configuration.delivery.originURL == "http://127.0.0.1:8088")
            #expect(configuration.delivery.originSecretFile == "/origin.conf")
            #expect(configuration.delivery.deliverySecretFile == "/delivery.secret")
            #expect(configuration.delivery.mediaURLMarginSeconds == 30)
            #expect(configuration.delivery.licenseURLSeconds == 60)
            #expect(configuration.rateLimits.sessionStartsPerMinute == 11)
            #expect(configuration.rateLimits.playbackStartsPerMinute == 7)
            #expect(configuration.delivery.maxLivePlaybacksPerViewer == 2)
            #expect(configuration.delivery.titlePageBaseURL == "https://www.example.com/watch")
            #expect(configuration.store.maxEndedRecordsPerViewer == 9)
            #expect(configuration.store.maxSessions == 900 && configuration.store.maxPlaybacks == 450)
            // KAS_KEY_RING_SEAL_KEY is known but read by KeyRingSealKey, never kept in the configuration.
            #expect(KASConfiguration.environmentVariables.count == 52)
            #expect(configuration.keyRingSealKeyFile == "/seal.key")
            #expect(configuration.keyRingDirectory == "/shared" && configuration.keyRingHome == "/shared")
            #expect(try KASConfiguration.load().keyRingHome == KASConfiguration.defaultDataDirectory)
            #expect(configuration.listen == ListenAddress(host: "::1", port: 7000))
            #expect(configuration.listen.description == "[::1]:7000")
            #expect(configuration.dataDirectory == "/d")
            #expect(configuration.publicURL == "https://p.example")
            #expect(configuration.acceptedKASURLs == ["https://p.example", "https://q.example"])
            #expect(configuration.tls == .init(certificateFile: "/c.pem", keyFile: "/k.pem"))
            #expect(!configuration.devIssuer)
            #expect(configuration.limits.maxBodyBytes == 2048)
            #expect(configuration.limits.maxConnections == 7)
            #expect(configuration.limits.maxConnectionsPerIP == 3)
            #expect(configuration.limits.requestTimeoutSeconds == 9)
            #expect(configuration.leaseSeconds == 77)
            #expect(configuration.rateLimits.keyRequestsPerMinute == 5)
            #expect(configuration.trustedProxies == ["10.1.0.0/16", "fd00::/8"])
            #expect(configuration.regionHeader == "X-Region")
        }

        @Test func unusedKASVariablesAreReportedButIssuerSecretsAreNot() throws {
            let configuration = try KASConfiguration.resolve([parse("""
            {"issuers": [{"issuer": "i", "audience": "a", "hs256SecretEnv": "KAS_IDP_SECRET"}]}
            """)])
            let unused = KASConfiguration.unusedEnvironmentVariables(
                ["KAS_LISTN": "x", "KAS_IDP_SECRET": "s", "KAS_LISTEN": "127.0.0.1:1", "HOME": "/root"],
                configuration: configuration)
            #expect(unused == ["KAS_LISTN"])
        }

        @Test func unknownKeysAreRefusedByName() throws {
            let error = #expect(throws: KASConfigurationError.self) {
                try parse(#"{"listen": "127.0.0.1:1", "lisen": "x", "limits": {"maxBody": 1}, "media": {"heartbeat": 1}, "issuers": [{"issuer": "i", "audience": "a", "pemFile": "p", "kid": "k"}]}"#)
            }
            #expect(error?.code == .unknownKey)
            #expect(error?.reason.contains("'lisen'") == true)
            #expect(error?.reason.contains("'limits.maxBody'") == true)
            #expect(error?.reason.contains("'media.heartbeat'") == true)
            #expect(error?.reason.contains("'issuers[0].kid'") == true)
            #expect(error?.reason.contains("kas.json") == true)
        }

        @Test(arguments: [
            ("not JSON", "{", KASConfigurationError.Code.malformedJSON, "kas.json"),
            ("duplicate key", #"{"listen": "127.0.0.1:1", "listen": "127.0.0.1:2"}"#, .malformedJSON, "kas.json"),
            ("array root", "[]", .malformedJSON, "kas.json"),
            ("listen without port", #"{"listen": "127.0.0.1"}"#, .invalidValue, "'listen'"),
            ("live key period zero", #"{"media": {"liveKeyPeriodSeconds": 0}}"#, .invalidValue, "media.liveKeyPeriodSeconds"),
            ("live lead negative", #"{"media": {"livePeriodLeadSeconds": -1}}"#, .invalidValue, "media.livePeriodLeadSeconds"),
            ("live DVR fraction", #"{"media": {"liveDVRSeconds": 1.5}}"#, .invalidValue, "media.liveDVRSeconds"),
            ("listen port too big", #"{"listen": "127.0.0.1:65536"}"#, .invalidValue, "'listen'"),
            ("listen unbracketed IPv6", #"{"listen": "::1:80"}"#, .invalidValue, "'listen'"),
            ("listen number", #"{"listen": 8443}"#, .invalidValue, "'listen'"),
            ("dataDir empty", #"{"dataDir": ""}"#, .invalidValue, "'dataDir'"),
            ("dataDir null", #"{"dataDir": null}"#, .invalidValue, "'dataDir'"),
            ("publicURL ftp", #"{"publicURL": "ftp://x.example"}"#, .invalidValue, "'publicURL'"),
            ("publicURL query", #"{"publicURL": "https://x.example/?a=b"}"#, .invalidValue, "'publicURL'"),
            ("publicURL user info", #"{"publicURL": "https://u:p@x.example"}"#, .invalidValue, "'publicURL'"),
            ("publicURL relative", #"{"publicURL": "/kas"}"#, .invalidValue, "'publicURL'"),
            ("acceptedKASURLs empty", #"{"acceptedKASURLs": []}"#, .invalidValue, "'acceptedKASURLs'"),
            ("acceptedKASURLs string", #"{"acceptedKASURLs": "https://x.example"}"#, .invalidValue, "'acceptedKASURLs'"),
            ("acceptedKASURLs bad item", #"{"acceptedKASURLs": ["https://x.example", "x"]}"#, .invalidValue, "acceptedKASURLs"),
            ("tlsCert number", #"{"tlsCert": 1, "tlsKey": "k"}"#, .invalidValue, "'tlsCert'"),
            ("devIssuer string", #"{"devIssuer": "false"}"#, .invalidValue, "'devIssuer'"),
            ("issuers object", #"{"issuers": {}}"#, .invalidValue, "'issuers'"),
            ("issuer not object", #"{"issuers": ["x"]}"#, .invalidValue, "'issuers[0]'"),
            ("issuer missing issuer", #"{"issuers": [{"audience": "a", "pemFile": "p"}]}"#, .missingValue, "issuers[0]"),
            ("issuer missing audience", #"{"issuers": [{"issuer": "i", "pemFile": "p"}]}"#, .missingValue, "issuers[0]"),
            ("issuer empty audience list", #"{"issuers": [{"issuer": "i", "audience": [], "pemFile": "p"}]}"#, .invalidValue, "issuers[0].audience"),
            ("issuer audience number", #"{"issuers": [{"issuer": "i", "audience": 1, "pemFile": "p"}]}"#, .invalidValue, "issuers[0].audience"),
            ("issuer no key source", #"{"issuers": [{"issuer": "i", "audience": "a"}]}"#, .missingValue, "exactly one"),
            ("issuer two key sources", #"{"issuers": [{"issuer": "i", "audience": "a", "pemFile": "p", "jwksFile": "j"}]}"#, .conflict, "exactly one"),
            ("discovery over plain http", #"{"issuers": [{"issuer": "http://idp.example", "audience": "a", "discovery": true}]}"#, .invalidValue, "plain http"),
            ("discovery issuer with user-info", #"{"issuers": [{"issuer": "https://u:p@idp.example", "audience": "a", "discovery": true}]}"#, .invalidValue, "user-info"),
            ("discovery issuer not a URL", #"{"issuers": [{"issuer": "idp", "audience": "a", "discovery": true}]}"#, .invalidValue, "issuers[0].issuer"),
            ("discovery false", #"{"issuers": [{"issuer": "https://idp.example", "audience": "a", "discovery": false}]}"#, .invalidValue, "issuers[0].discovery"),
            ("discovery and a key file", #"{"issuers": [{"issuer": "https://i.example", "audience": "a", "discovery": true, "pemFile": "p"}]}"#, .conflict, "exactly one"),
            ("caFile without discovery", #"{"issuers": [{"issuer": "i", "audience": "a", "pemFile": "p", "caFile": "ca.pem"}]}"#, .conflict, "issuers[0].caFile"),
            ("maxStaleSeconds too small", #"{"issuers": [{"issuer": "https://i.example", "audience": "a", "discovery": true, "maxStaleSeconds": 5}]}"#, .invalidValue, "issuers[0].maxStaleSeconds"),
            ("issuer bad env name", #"{"issuers": [{"issuer": "i", "audience": "a", "hs256SecretEnv": "1 BAD"}]}"#, .invalidValue, "hs256SecretEnv"),
            ("issuer duplicate", #"{"issuers": [{"issuer": "i", "audience": "a", "pemFile": "p"}, {"issuer": "i", "audience": "b", "pemFile": "q"}]}"#, .invalidValue, "issuers[1].issuer"),
            ("limits not object", #"{"limits": 5}"#, .invalidValue, "'limits'"),
            ("maxBodyBytes too small", #"{"limits": {"maxBodyBytes": 10}}"#, .invalidValue, "limits.maxBodyBytes"),
            ("maxBodyBytes fraction", #"{"limits": {"maxBodyBytes": 2048.5}}"#, .invalidValue, "limits.maxBodyBytes"),
            ("maxBodyBytes string", #"{"limits": {"maxBodyBytes": "2048"}}"#, .invalidValue, "limits.maxBodyBytes"),
            ("maxConnections zero", #"{"limits": {"maxConnections": 0}}"#, .invalidValue, "limits.maxConnections"),
            ("maxConnectionsPerIP negative", #"{"limits": {"maxConnectionsPerIP": -1}}"#, .invalidValue, "limits.maxConnectionsPerIP"),
            ("requestTimeoutSeconds huge", #"{"limits": {"requestTimeoutSeconds": 99999999999999999999}}"#, .invalidValue, "limits.requestTimeoutSeconds"),
            ("leaseSeconds zero", #"{"leaseSeconds": 0}"#, .invalidValue, "'leaseSeconds'"),
            ("rateLimits not object", #"{"rateLimits": []}"#, .invalidValue, "'rateLimits'"),
            ("keyRequestsPerMinute zero", #"{"rateLimits": {"keyRequestsPerMinute": 0}}"#, .invalidValue, "rateLimits.keyRequestsPerMinute"),
            ("trustedProxies bad address", #"{"trustedProxies": ["10.0.0.300"]}"#, .invalidValue, "trustedProxies"),
            ("trustedProxies bad prefix", #"{"trustedProxies": ["10.0.0.0/33"]}"#, .invalidValue, "trustedProxies"),
            ("trustedProxies host name", #"{"trustedProxies": ["proxy.example"]}"#, .invalidValue, "trustedProxies"),
            ("regionHeader with space", #"{"regionHeader": "X Region"}"#, .invalidValue, "'regionHeader'"),
            ("regionHeader colon", #"{"regionHeader": "X-Region:"}"#, .invalidValue, "'regionHeader'"),
            ("media not an object", #"{"media": 5}"#, .invalidValue, "'media'"),
            ("media heartbeat zero", #"{"media": {"heartbeatSeconds": 0}}"#, .invalidValue, "media.heartbeatSeconds"),
            ("media audit size small", #"{"media": {"auditMaxBytes": 10}}"#, .invalidValue, "media.auditMaxBytes"),
            ("media timeout below heartbeat", #"{"media": {"heartbeatSeconds": 90, "sessionTimeoutSeconds": 60}}"#,
             .conflict, "media.sessionTimeoutSeconds"),
        ])
        func malformedFieldsAreRefusedNamingTheKey(label: String, json: String, code: KASConfigurationError.Code, mentions: String) {
            let error = #expect(throws: KASConfigurationError.self, "\(label)") {
                try KASConfiguration.resolve([parse(json)])
            }
            #expect(error?.code == code, "\(label): \(String(describing: error))")
            #expect(error?.reason.contains(mentions) == true, "\(label): \(String(describing: error))")
        }

        @Test(arguments: [
            ("KAS_LISTEN", "nope"), ("KAS_PUBLIC_URL", "kas.example"), ("KAS_DEV_ISSUER", "maybe"),
            ("KAS_MAX_BODY_BYTES", "1k"), ("KAS_MAX_CONNECTIONS", "0"), ("KAS_LEASE_SECONDS", "-5"),
            ("KAS_KEY_REQUESTS_PER_MINUTE", "1e3"), ("KAS_TRUSTED_PROXIES", "10.0.0.0/40"), ("KAS_REGION_HEADER", "a b"),
            ("KAS_ACCEPTED_KAS_URLS", "https://ok.example,notaurl"),
        ])
        func malformedEnvironmentValuesNameTheVariable(name: String, value: String) {
            let error = #expect(throws: KASConfigurationError.self, "\(name)") {
                try KASConfiguration.load(environment: [name: value])
            }
            #expect(error?.code == .invalidValue)
            #expect(error?.reason.contains(name) == true, "\(String(describing: error))")
        }

        @Test func malformedFlagsNameTheFlag() {
            let listen = #expect(throws: KASConfigurationError.self) { try KASConfiguration.flagOverrides(listen: "localhost") }
            #expect(listen?.reason.contains("--listen") == true)
            let url = #expect(throws: KASConfigurationError.self) { try KASConfiguration.flagOverrides(publicURL: "https://") }
            #expect(url?.reason.contains("--public-url") == true)
        }

        @Test func tlsNeedsBothCertificateAndKey() {
            #expect(throws: KASConfigurationError(.conflict, "")) {
                try KASConfiguration.load(flags: KASConfiguration.flagOverrides(tlsCertificateFile: "c.pem"))
            }
            #expect(throws: KASConfigurationError(.conflict, "")) {
                try KASConfiguration.load(environment: ["KAS_TLS_KEY": "k.pem"])
            }
            // One half from the file and the other from a flag is a complete pair.
            let combined = try? KASConfiguration.resolve([
                parse(#"{"tlsCert": "/c.pem"}"#), KASConfiguration.flagOverrides(tlsKeyFile: "/k.pem"),
            ])
            #expect(combined?.tls == .init(certificateFile: "/c.pem", keyFile: "/k.pem"))
        }

        @Test func unreadableFilesAreReported() throws {
            let error = #expect(throws: KASConfigurationError.self) {
                try KASConfiguration.load(configFile: "/nonexistent/kas.json")
            }
            #expect(error?.code == .unreadableFile)
            #expect(error?.reason.contains("/nonexistent/kas.json") == true)
        }

        @Test func everyTruncationOfAValidFileIsRefused() throws {
            let bytes = Array(#"{"listen": "127.0.0.1:1", "limits": {"maxBodyBytes": 4096}, "issuers": [{"issuer": "i", "audience": ["a"], "pemFile": "p.pem"}]}"#.utf8)
            _ = try KASConfiguration.fileOverrides(bytes: bytes, file: "kas.json", baseDirectory: "/")
            for length in 0..<bytes.count {
                #expect(throws: KASConfigurationError.self, "prefix \(length)") {
                    try KASConfiguration.fileOverrides(bytes: Array(bytes.prefix(length)), file: "kas.json", baseDirectory: "/")
                }
            }
        }
    }
}
