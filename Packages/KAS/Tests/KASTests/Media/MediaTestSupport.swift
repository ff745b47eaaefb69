// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Synchronization

/// Shared material: one RSA-2048 KAS key per test process (generation is the slow part).
enum MediaFixture {
    static let kasURL = "https://kas.example.com"
    static let attribute = "https://example.com/attr/tier/value/gold"
    private static let cachedKey = Mutex<RSA.PrivateKey?>(nil)

    static func kasKey() throws -> RSA.PrivateKey {
        try cachedKey.withLock { cached in
            if let cached { return cached }
            let key = try RSA.PrivateKey(keySize: 2048)
            cached = key
            return key
        }
    }

    static func randomKey(_ count: Int = 16) throws -> Data { try SecureRandom.data(count: count) }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kas-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A random bearer token: the log scan looks for these exact strings.
    static func token() throws -> String { "tok-" + Hex.encode(try SecureRandom.data(count: 24)) }
}

/// An fps-v2 manifest built with the TDF module, with knobs for the mutations the §10.7 tests make.
struct TestPackage {
    struct Component {
        var id: String
        var kind: String
        var key: Data
    }

    var uuid = UUID().uuidString.lowercased()
    var components: [Component]
    var dataAttributes = [MediaFixture.attribute]
    var dissem: [String] = []
    var media: JSONValue?
    var classification: JSONValue = .object(JSONObject([
        ("filter", .string("passed")), ("flagged", .array([])), ("v", .number(JSONNumber(1))),
    ]))
    var iv = Data((0xF0...0xFF).map { UInt8($0) })
    var kasURL = MediaFixture.kasURL
    /// The KAS key the component keys are wrapped to; nil: `MediaFixture.kasKey()`.
    var kasPublicKey: RSA.PublicKey?
    /// Replaces the policy JSON the bindings are computed over (for duplicate-key policies).
    var policyJSONOverride: Data?
    var bindingForm: TDFBinding.Form = .raw

    static func audioVideo() throws -> TestPackage {
        TestPackage(components: [
            Component(id: "video", kind: "video", key: try MediaFixture.randomKey()),
            Component(id: "audio", kind: "audio", key: try MediaFixture.randomKey()),
        ])
    }

    static func videoOnly() throws -> TestPackage {
        TestPackage(components: [Component(id: "video", kind: "video", key: try MediaFixture.randomKey())])
    }

    var policy: TDFPolicy {
        TDFPolicy(uuid: uuid, dataAttributes: dataAttributes, dissem: dissem,
                  components: MediaComponentList(entries: components.map { .init(id: $0.id, kind: $0.kind, key: SecretKey(data: $0.key)) }),
                  classification: classification, media: media)
    }

    var policyBase64: String { policyJSONOverride.map { Base64.encode($0) } ?? policy.base64 }

    func keyAccess(policyBase64: String) throws -> [JSONValue] {
        let publicKey = try kasPublicKey ?? MediaFixture.kasKey().publicKey
        return try components.map { component in
            try KeyAccessObject.wrapping(SecretKey(data: component.key), to: .rsa(publicKey), kasURL: kasURL,
                                         policyBase64: policyBase64, bindingForm: bindingForm).jsonValue
        }
    }

    /// The manifest as a JSON value (mutate, then `bytes(of:)`).
    func manifestValue() throws -> JSONValue {
        let policyText = policyBase64
        return .object(JSONObject([
            ("encryptionInformation", .object(JSONObject([
                ("type", .string("split")),
                ("policy", .string(policyText)),
                ("keyAccess", .array(try keyAccess(policyBase64: policyText))),
                ("method", .object(JSONObject([
                    ("algorithm", .string("AES-128-CBCS")), ("iv", .string(Base64.encode(iv))), ("isStreamable", .bool(true)),
                ]))),
            ]))),
            ("payload", .object(JSONObject([
                ("type", .string("reference")), ("url", .string("master.m3u8")), ("protocol", .string("zip")),
                ("isEncrypted", .bool(true)),
            ]))),
            ("schemaVersion", .string("4.3.0")),
        ]))
    }

    func manifest() throws -> Data { JSONWriter.write(try manifestValue(), options: []) }
}

extension JSONValue {
    /// A copy with `path` replaced (object keys and array indexes).
    func replacing(_ path: [JSONPathComponent], with newValue: JSONValue) -> JSONValue {
        guard let first = path.first else { return newValue }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(let object), .key(let key)):
            var members: [(String, JSONValue)] = []
            for member in object {
                members.append((member.key, member.key == key ? member.value.replacing(rest, with: newValue) : member.value))
            }
            return .object(JSONObject(members))
        case (.array(var items), .index(let index)) where items.indices.contains(index):
            items[index] = items[index].replacing(rest, with: newValue)
            return .array(items)
        default:
            return self
        }
    }

    func value(at path: [JSONPathComponent]) -> JSONValue? {
        guard let first = path.first else { return self }
        switch (self, first) {
        case (.object(let object), .key(let key)): return object[key]?.value(at: Array(path.dropFirst()))
        case (.array(let items), .index(let index)) where items.indices.contains(index):
            return items[index].value(at: Array(path.dropFirst()))
        default: return nil
        }
    }
}

extension Identity {
    /// A verified viewer as the bearer-token verifier would make it; rentals keyed by uuid text.
    static func viewer(_ subject: String, entitlements: [String] = [], rentals: [String: Int64] = [:],
                       claims: JSONObject = JSONObject()) -> Identity {
        var byUUID: [UUID: Int64] = [:]
        for (text, time) in rentals { if let uuid = UUID(uuidString: text) { byUUID[uuid] = time } }
        return Identity(subject: subject, issuer: "test", entitlements: entitlements, rentals: byUUID, claims: claims)
    }
}

/// Maps `Authorization: Bearer <token>` to a fixed identity, standing in for the token verifier
/// (kas-keys' `AuthenticationMiddleware`), which the media routes only see through the context.
struct TestAuthentication: HTTPMiddleware {
    final class Table: Sendable {
        private let map = Mutex<[String: Identity]>([:])
        func set(_ token: String, _ identity: Identity) { map.withLock { $0[token] = identity } }
        func get(_ token: String) -> Identity? { map.withLock { $0[token] } }
    }

    let identities = Table()

    func handle(_ request: ServerRequest, context: inout KASRequestContext,
                next: (ServerRequest, inout KASRequestContext) throws -> ServerResponse) throws -> ServerResponse {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer "),
              let identity = identities.get(String(header.dropFirst(7)))
        else { throw HTTPError.unauthorized }
        context.identity = identity
        return try next(request, &context)
    }
}

/// A real server on 127.0.0.1 with the media routes, a SQLite store in a temp directory (or the
/// store given), the audit log, the request log, and metrics.
final class MediaHarness: @unchecked Sendable {
    let directory: URL
    let store: any MediaStore
    let service: MediaService
    let server: TestServer
    let auditLog: MediaAuditLog
    let requestLog = MemoryLogSink()
    let metrics = Metrics()
    let authentication = TestAuthentication()
    let clock: TestClock
    /// Written only while a test sets up (before any parallel use).
    var tokens: [String] = []

    /// `regions`: where requests' regions come from (the route adapters read it, not the service).
    init(configure: (inout MediaServiceConfiguration) -> Void = { _ in }, regions: TrustedRegionSource = .none,
         fairPlay: (any FairPlayKeyModule)? = nil, clock: TestClock = TestClock(), store: (any MediaStore)? = nil) throws {
        directory = try MediaFixture.temporaryDirectory()
        self.store = try store ?? SQLiteMediaStore(path: directory.appendingPathComponent("media.sqlite").path)
        auditLog = try MediaAuditLog(path: directory.appendingPathComponent("audit.log").path)
        var configuration = MediaServiceConfiguration(acceptedKASURLs: [MediaFixture.kasURL])
        configure(&configuration)
        self.clock = clock
        service = try MediaService(configuration: configuration, store: self.store,
                                   unwrapper: PrivateKeyUnwrapper([.rsa(try MediaFixture.kasKey())]),
                                   fairPlay: fairPlay, audit: auditLog, metrics: metrics, clock: { clock.now })
        let router = Router<KASRequestContext>()
        router.add(middleware: RequestLogMiddleware(sink: requestLog))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(sink: requestLog))
        registerMediaRoutes(on: router, service: service, regions: regions, authentication: authentication)
        server = try TestServer(router: router) { $0.maxBodyBytes = 4 << 20 }
    }

    deinit {
        server.stop(gracePeriod: .seconds(1))
        try? FileManager.default.removeItem(at: directory)
    }

    /// A viewer with a fresh token.
    func viewer(_ subject: String, entitlements: [String] = [MediaFixture.attribute],
                rentals: [String: Int64] = [:]) throws -> String {
        let token = try MediaFixture.token()
        var claims: [(String, JSONValue)] = [("sub", .string(subject))]
        claims.append(("entitlements", .array(entitlements.map { .string($0) })))
        claims.append(("rentals", .object(JSONObject(rentals.map { ($0.key, .number(JSONNumber($0.value))) }))))
        authentication.identities.set(token, .viewer(subject, entitlements: entitlements, rentals: rentals, claims: JSONObject(claims)))
        tokens.append(token)
        return token
    }

    func post(_ path: String, token: String?, body: JSONValue, headers: [String] = []) throws -> CurlResult {
        var arguments = ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        for header in headers { arguments += ["-H", header] }
        return try Curl.run(arguments + [server.url(path)], stdin: JSONWriter.write(body, options: [.sortedKeys]))
    }

    func delete(_ path: String, token: String) throws -> CurlResult {
        try Curl.run(["-X", "DELETE", "-H", "Authorization: Bearer \(token)", server.url(path)])
    }

    /// Starts a session and returns its id (nil when refused).
    func startSession(token: String, asset: String, protocol proto: String = "tdf", playbackId: String? = nil,
                      extra: [(String, JSONValue)] = []) throws -> (result: CurlResult, sessionId: String?) {
        var members: [(String, JSONValue)] = [("assetId", .string(asset)), ("protocol", .string(proto))]
        if let playbackId { members.append(("playbackId", .string(playbackId))) }
        members += extra
        let result = try post("/media/v1/session/start", token: token, body: .object(JSONObject(members)))
        let id = (try? JSONParser.parse(result.body))?.object?["sessionId"]?.string
        return (result, id)
    }

    /// An open-path key request with a fresh client key; returns the result and the client key.
    func openKeyRequest(token: String, asset: String, component: String?, sessionId: String, manifest: Data,
                        extra: [(String, JSONValue)] = []) throws -> (result: CurlResult, clientKey: ECP256.KeyAgreement.PrivateKey) {
        let (members, clientKey) = try Self.openKeyRequestBody(asset: asset, component: component, sessionId: sessionId,
                                                               manifest: manifest)
        return (try post("/media/v1/key-request", token: token, body: .object(JSONObject(members + extra))), clientKey)
    }

    /// The members of an open-path key request with a fresh P-256 client key.
    static func openKeyRequestBody(asset: String, component: String?, sessionId: String,
                                   manifest: Data) throws -> (members: [(String, JSONValue)], clientKey: ECP256.KeyAgreement.PrivateKey) {
        let clientKey = try ECP256.KeyAgreement.PrivateKey()
        var members: [(String, JSONValue)] = [
            ("assetId", .string(asset)), ("sessionId", .string(sessionId)),
            ("tdfManifest", .string(Base64.encode(manifest))),
            ("clientPublicKey", .string(clientKey.publicKey.pemRepresentation)),
        ]
        if let component { members.append(("component", .string(component))) }
        return (members, clientKey)
    }

    /// Unwraps the key of a successful open-path answer.
    static func unwrap(_ result: CurlResult, with clientKey: ECP256.KeyAgreement.PrivateKey) throws -> Data? {
        guard let object = (try? JSONParser.parse(result.body))?.object,
              let wrapped = object["wrappedKey"]?.string, let pem = object["sessionPublicKey"]?.string else { return nil }
        let ephemeral = try ECP256.KeyAgreement.PublicKey(pemRepresentation: pem)
        let key = try ECWrap.unwrap(Base64.decode(wrapped), ephemeralPublicKey: ephemeral, with: clientKey)
        return key.withUnsafeBytes { Data($0) }
    }

    var auditLines: [String] {
        ((try? String(contentsOfFile: auditLog.path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var auditEvents: [JSONObject] { auditLines.compactMap { (try? JSONParser.parse(Data($0.utf8)))?.object } }
}

/// A settable clock shared by the service and the test.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    init() {}
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}
