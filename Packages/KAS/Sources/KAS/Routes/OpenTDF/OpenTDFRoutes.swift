import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMProtobuf
import MediaDRMZIP

/// Settings of the OpenTDF routes beyond the key ring and the token verifier.
public struct OpenTDFRouteOptions: Sendable {
    /// The server's public base URL, for the well-known configuration.
    public var publicURL: String?
    /// The token issuer OpenTDF SDKs should use (`platform_issuer` in the well-known document).
    public var platformIssuer: String?
    /// Bound on a gzip request body once inflated.
    public var maximumInflatedBodyBytes: Int
    package var mediaPolicies: OpenTDFRewrapService.MediaPolicyHandling
    public var clock: @Sendable () -> Date
    public var clockSkew: TimeInterval
    /// The per-viewer rewrap rate limit; nil: none.
    package var rewrapLimit: RewrapRateLimit?

    package init(publicURL: String? = nil, platformIssuer: String? = nil,
                maximumInflatedBodyBytes: Int = GzipDecoder.defaultMaximumOutput,
                mediaPolicies: OpenTDFRewrapService.MediaPolicyHandling = .refuse,
                clock: @escaping @Sendable () -> Date = { Date() },
                clockSkew: TimeInterval = SignedRequestToken.defaultClockSkew, rewrapLimit: RewrapRateLimit? = nil) {
        self.publicURL = publicURL
        self.platformIssuer = platformIssuer
        self.maximumInflatedBodyBytes = maximumInflatedBodyBytes
        self.mediaPolicies = mediaPolicies
        self.clock = clock
        self.clockSkew = clockSkew
        self.rewrapLimit = rewrapLimit
    }
}

/// Registers the OpenTDF routes:
/// - `GET /kas/v2/kas_public_key?algorithm=&kid=&fmt=&v=` -> `{"publicKey", "kid"}` (no token);
/// - `POST /kas/v2/rewrap` `{"signedRequestToken"}` -> proto3 JSON `RewrapResponse` (bearer token);
/// - Connect unary `POST /kas.AccessService/PublicKey` (no token) and `/kas.AccessService/Rewrap`
///   (bearer token), `application/proto` or `application/json`, gzip request bodies, errors as
///   Connect JSON `{code, message}` with the Connect HTTP status;
/// - `GET /.well-known/opentdf-configuration`.
/// REST errors are the server's `{"error": reason}` bodies.
///
/// Register these on the router itself, not inside a group behind `AuthenticationMiddleware`:
/// the public-key and well-known routes need no token, and the rewrap handlers verify the bearer
/// token themselves so that a refusal is a Connect error (`unauthenticated`) for Connect clients.
package func registerOpenTDFRoutes(on router: Router<KASRequestContext>, keyRing: any OpenTDFKeyProvider, verifier: BearerTokenVerifier,
                                  options: OpenTDFRouteOptions = OpenTDFRouteOptions()) {
    let routes = OpenTDFRouteHandlers(keys: keyRing, verifier: verifier, options: options)
    router.get("/kas/v2/kas_public_key") { request, _ in try routes.restPublicKey(request) }
    router.post("/kas/v2/rewrap") { request, context in try routes.restRewrap(request, &context) }
    router.post("/kas.AccessService/PublicKey") { request, context in routes.connect(.publicKey, request, &context) }
    router.post("/kas.AccessService/Rewrap") { request, context in routes.connect(.rewrap, request, &context) }
    router.get("/.well-known/opentdf-configuration") { _, _ in routes.wellKnown() }
}

/// The handlers behind `registerOpenTDFRoutes`, callable without a server.
struct OpenTDFRouteHandlers: Sendable {
    enum ConnectMethod: Sendable { case publicKey, rewrap }
    enum Codec: Sendable {
        case proto, json
        var contentType: String {
            switch self {
            case .proto: "application/proto"
            case .json: "application/json"
            }
        }
    }

    let publicKeys: OpenTDFPublicKeyService
    let rewraps: OpenTDFRewrapService
    let verifier: BearerTokenVerifier
    let options: OpenTDFRouteOptions

    init(keys: any OpenTDFKeyProvider, verifier: BearerTokenVerifier, options: OpenTDFRouteOptions) {
        self.publicKeys = OpenTDFPublicKeyService(keys: keys)
        self.rewraps = OpenTDFRewrapService(keys: keys, clock: options.clock, clockSkew: options.clockSkew,
                                            mediaPolicies: options.mediaPolicies)
        self.verifier = verifier
        self.options = options
    }

    // MARK: REST

    func restPublicKey(_ request: ServerRequest) throws(HTTPError) -> ServerResponse {
        do {
            let message = PublicKeyRequest(algorithm: request.queryValue("algorithm") ?? "",
                                           fmt: request.queryValue("fmt") ?? "", v: request.queryValue("v") ?? "")
            return .json(try publicKeys.publicKey(message, kid: request.queryValue("kid")).jsonValue)
        } catch {
            throw Self.httpError(error)
        }
    }

    func restRewrap(_ request: ServerRequest, _ context: inout KASRequestContext) throws(HTTPError) -> ServerResponse {
        do {
            let entity = try authenticate(request, &context)
            try options.rewrapLimit?.consume(viewer: entity.viewer)
            let body = try decodedBody(request)
            let message = try RewrapRequest(json: ProtoJSON.parse(body, "request body"))
            return .json(try rewraps.rewrap(message, entity: entity.entity, dpopKey: entity.dpopKey).jsonValue)
        } catch {
            throw Self.httpError(error)
        }
    }

    static func httpError(_ error: OpenTDFError) -> HTTPError {
        HTTPError(HTTPStatus(code: error.httpStatus), reason: error.reason, headers: retryHeaders(error))
    }

    static func retryHeaders(_ error: OpenTDFError) -> ServerHeaders {
        var headers = ServerHeaders()
        if let seconds = error.retryAfter { headers.add(name: "Retry-After", value: String(seconds)) }
        return headers
    }

    // MARK: Connect

    func connect(_ method: ConnectMethod, _ request: ServerRequest, _ context: inout KASRequestContext) -> ServerResponse {
        do throws(OpenTDFError) {
            let codec = try Self.codec(request.headers["Content-Type"])
            if let version = request.headers["Connect-Protocol-Version"], version != "1" {
                throw OpenTDFError(.malformedRequest, "Connect-Protocol-Version must be 1")
            }
            switch method {
            case .publicKey:
                let body = try decodedBody(request)
                let message: PublicKeyRequest
                switch codec {
                case .proto: message = try Self.protobuf { () throws(ProtobufError) in try PublicKeyRequest(protobuf: body) }
                case .json: message = try PublicKeyRequest(json: ProtoJSON.parse(body, "request body"))
                }
                let response = try publicKeys.publicKey(message)
                return Self.connectResponse(codec, proto: response.protobufData, json: response.jsonValue)
            case .rewrap:
                let entity = try authenticate(request, &context)
                try options.rewrapLimit?.consume(viewer: entity.viewer)
                let body = try decodedBody(request)
                let message: RewrapRequest
                switch codec {
                case .proto: message = try Self.protobuf { () throws(ProtobufError) in try RewrapRequest(protobuf: body) }
                case .json: message = try RewrapRequest(json: ProtoJSON.parse(body, "request body"))
                }
                let response = try rewraps.rewrap(message, entity: entity.entity, dpopKey: entity.dpopKey)
                return Self.connectResponse(codec, proto: response.protobufData, json: response.jsonValue)
            }
        } catch {
            return Self.connectError(error)
        }
    }

    static func protobuf<T>(_ decode: () throws(ProtobufError) -> T) throws(OpenTDFError) -> T {
        do {
            return try decode()
        } catch {
            throw OpenTDFError(error)
        }
    }

    static func codec(_ contentType: String?) throws(OpenTDFError) -> Codec {
        guard let contentType else {
            throw OpenTDFError(.unsupportedMediaType, "Content-Type must be application/proto or application/json")
        }
        let parts = contentType.split(separator: ";", maxSplits: 1)
        let mediaType = (parts.first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        switch mediaType {
        case "application/proto": return .proto
        case "application/json":
            if parts.count > 1 {
                let parameter = parts[1].trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "\"", with: "")
                guard parameter == "charset=utf-8" else {
                    throw OpenTDFError(.unsupportedMediaType, "application/json bodies must be UTF-8")
                }
            }
            return .json
        default:
            throw OpenTDFError(.unsupportedMediaType, "Content-Type must be application/proto or application/json")
        }
    }

    static func connectResponse(_ codec: Codec, proto: Data, json: JSONValue) -> ServerResponse {
        switch codec {
        case .proto: .bytes(proto, contentType: codec.contentType)
        case .json: .bytes(JSONWriter.write(json, options: [.sortedKeys]), contentType: codec.contentType)
        }
    }

    /// Connect's error body. Content-Type and HTTP status follow the Connect protocol, except that
    /// a body the server cannot read at all (media type) answers 415 as Connect servers do.
    static func connectError(_ error: OpenTDFError) -> ServerResponse {
        let status = error.code == .unsupportedMediaType ? 415 : error.connectCode.httpStatus
        var response = ServerResponse.json(.object(JSONObject([("code", .string(error.connectCode.rawValue)),
                                                               ("message", .string(error.reason))])),
                                           status: HTTPStatus(code: status))
        for (name, value) in retryHeaders(error) { response.headers.add(name: name, value: value) }
        return response
    }

    // MARK: Shared

    /// The body, inflated when `Content-Encoding` (or `Connect-Content-Encoding`) is gzip.
    func decodedBody(_ request: ServerRequest) throws(OpenTDFError) -> [UInt8] {
        let encodings = request.headers.values(for: "Content-Encoding") + request.headers.values(for: "Connect-Content-Encoding")
        var gzip = false
        for value in encodings {
            for token in value.split(separator: ",") {
                switch token.trimmingCharacters(in: .whitespaces).lowercased() {
                case "identity", "": continue
                case "gzip":
                    guard !gzip else { throw OpenTDFError(.unsupportedMediaType, "the body is gzip-encoded more than once") }
                    gzip = true
                default: throw OpenTDFError(.unsupportedMediaType, "Content-Encoding must be gzip or identity")
                }
            }
        }
        guard gzip else { return request.body }
        do {
            return Array(try GzipDecoder.decompress(request.body, maximumOutput: options.maximumInflatedBodyBytes))
        } catch {
            // 400 for bad or cut data, 413 past the bound (the reason names it).
            switch error.code {
            case .malformed: throw OpenTDFError(.badCompression, "the gzip body is not valid gzip")
            case .truncated: throw OpenTDFError(.badCompression, "the gzip body is truncated")
            case .tooLarge: throw OpenTDFError(.tooLarge, "the gzip body inflates past the limit of \(options.maximumInflatedBodyBytes) bytes")
            case .unavailable: throw OpenTDFError(.internalFailure, error.reason)
            }
        }
    }

    struct Caller {
        /// The verified viewer (issuer and subject), whose rate bucket the request draws on.
        var viewer: Identity
        var entity: OpenTDFEntity
        var dpopKey: JWSVerificationKey?
    }

    /// The bearer token, verified; the DPoP key when a proof is presented.
    func authenticate(_ request: ServerRequest, _ context: inout KASRequestContext) throws(OpenTDFError) -> Caller {
        let authorizations = request.headers.values(for: "Authorization")
        let identity: Identity
        do {
            identity = try verifier.verify(authorizationHeaderValues: authorizations)
        } catch {
            switch error.code {
            case .missingToken: throw OpenTDFError(.unauthenticated, "a bearer token is required")
            case .malformedAuthorization: throw OpenTDFError(.unauthenticated, "the Authorization header is not one bearer token")
            case .invalidToken, .issuerKeysUnavailable: throw OpenTDFError(.unauthenticated, "the bearer token is not valid")
            }
        }
        context.viewerHash = identity.viewerHash
        if context.identity == nil { context.identity = identity }
        var dpopKey: JWSVerificationKey?
        let proofs = request.headers.values(for: "DPoP")
        if !proofs.isEmpty {
            guard proofs.count == 1, let authorization = authorizations.first,
                  let token = try? BearerTokenVerifier.bearerToken(in: authorization) else {
                throw OpenTDFError(.unauthenticated, "the DPoP proof is not valid")
            }
            dpopKey = try DPoPProof.verificationKey(proof: proofs[0], method: request.method.rawValue, path: request.path,
                                                    accessToken: token, now: options.clock())
        }
        return Caller(viewer: identity, entity: OpenTDFEntity(subject: identity.subject, entitlements: identity.entitlements), dpopKey: dpopKey)
    }

    /// What OpenTDF SDKs read: `platform_issuer` (otdf-python discovers its token endpoint from
    /// it when it uses client credentials) and where the KAS and health check are.
    func wellKnown() -> ServerResponse {
        var configuration: [(String, JSONValue)] = [
            ("health", .object(JSONObject([("endpoint", .string("/healthz"))]))),
        ]
        if let issuer = options.platformIssuer {
            configuration.append(("platform_issuer", .string(issuer)))
            configuration.append(("idp", .object(JSONObject([("issuer", .string(issuer))]))))
        }
        if let publicURL = options.publicURL {
            let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
            configuration.append(("kas", .object(JSONObject([
                ("uri", .string(base + "/kas")),
                ("public_key_endpoint", .string(base + "/kas/v2/kas_public_key")),
                ("rewrap_endpoint", .string(base + "/kas/v2/rewrap")),
            ]))))
        }
        return .json(.object(JSONObject([("configuration", .object(JSONObject(configuration)))])))
    }
}
