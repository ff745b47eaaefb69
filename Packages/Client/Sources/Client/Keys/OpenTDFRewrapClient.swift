// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import Foundation
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF

/// The KAS's bulk rewrap of many key access objects at once, over one of two routes:
/// - `.openTDF`: the OpenTDF REST rewrap (`POST /kas/v2/rewrap`), for policies without media
///   rules; the signed request token (ES256, `requestBody` = the v2 `UnsignedRewrapRequest` JSON
///   text, `iat`, `exp`) is signed with the request's ephemeral key;
/// - `.mediaSession(id)`: the media rewrap (`POST /media/v1/rewrap`, `MediaRewrapBody`) through
///   the playback's live media session, for policies with `arkavo:media`; a request of more than
///   `MediaRewrapBody.maximumKeyAccessObjects` objects is sent as several, and a refusal keeps
///   its code (`PlaybackError.Refusal`).
///
/// Each request makes a fresh ephemeral P-256 key: its public half is the request's
/// `clientPublicKey`. Objects are grouped by their policy text; every answer is unwrapped with
/// ECDH against `sessionPublicKey` + HKDF (salt SHA-256("TDF")) + AES-GCM. Statuses map by
/// fps-v2 §10.5; a `fail` result is a denial (a `bad request` one malformed). A rate-limited
/// request is sent again after the server's `Retry-After` (`RateLimitWait`). The token travels
/// only as the bearer credential.
struct OpenTDFRewrapClient: Sendable {
    struct Item: Sendable {
        let id: String
        let policy: String
        let keyAccess: KeyAccessObject
    }

    let baseURL: String
    let client: HTTPClient
    let credential: Credential
    let rateLimit: RateLimitWait

    init(baseURL: String, client: HTTPClient, credential: Credential, rateLimit: RateLimitWait = RateLimitWait()) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.client = client
        self.credential = credential
        self.rateLimit = rateLimit
    }

    enum Route: Sendable, Equatable {
        case openTDF
        case mediaSession(String)
    }

    /// Payload keys by item id; throws at the first object that is not permitted.
    func rewrap(_ items: [Item], route: Route = .openTDF) throws(PlaybackError) -> [String: SecretKey] {
        guard case .mediaSession(let sessionID) = route else { return try rewrapOpenTDF(items) }
        var keys: [String: SecretKey] = [:]
        var start = items.startIndex
        while start < items.endIndex {
            let end = min(start + MediaRewrapBody.maximumKeyAccessObjects, items.endIndex)
            let chunk = Array(items[start..<end])
            let (response, privateKey) = try rateLimit.run { () throws(PlaybackError) -> (TransportResponse, ECP256.KeyAgreement.PrivateKey) in
                let privateKey = try Self.ephemeralKey()
                let body = MediaRewrapBody(sessionID: sessionID, clientPublicKeyPEM: privateKey.publicKey.pemRepresentation,
                                           requests: Self.bulkRequests(chunk))
                return (try send(TransportRequest(
                    method: .post, url: baseURL + MediaRewrapBody.path, headers: ["Content-Type": "application/json"],
                    body: JSONWriter.write(body.jsonValue, options: [.sortedKeys]), credential: credential,
                    maxResponseBytes: 4 << 20, extraAcceptedStatuses: KASMediaService.refusalStatuses), route: "media rewrap"),
                        privateKey)
            }
            let answer = try KASMediaService.refuseIfRefusal(response, route: "media rewrap")
            keys.merge(try Self.keys(from: answer.body, ids: chunk.map(\.id), privateKey: privateKey)) { $1 }
            start = end
        }
        return keys
    }

    private static func ephemeralKey() throws(PlaybackError) -> ECP256.KeyAgreement.PrivateKey {
        do {
            return try ECP256.KeyAgreement.PrivateKey()
        } catch {
            throw PlaybackError(.invalidArgument, "an ephemeral P-256 key could not be generated")
        }
    }

    /// The v2 `requests` of a bulk rewrap: the items grouped by policy text, in first-seen order.
    static func bulkRequests(_ items: [Item]) -> [JSONValue] {
        var policies: [String] = []
        var objects: [String: [JSONValue]] = [:]
        for item in items {
            if objects[item.policy] == nil { policies.append(item.policy) }
            objects[item.policy, default: []].append(.object(JSONObject([
                ("keyAccessObject", item.keyAccess.jsonValue), ("keyAccessObjectId", .string(item.id)),
            ])))
        }
        return policies.enumerated().map { index, policy in
            .object(JSONObject([
                ("algorithm", .string("ec:secp256r1")),
                ("keyAccessObjects", .array(objects[policy] ?? [])),
                ("policy", .object(JSONObject([("body", .string(policy)), ("id", .string("policy-\(index)"))]))),
            ]))
        }
    }

    private func rewrapOpenTDF(_ items: [Item]) throws(PlaybackError) -> [String: SecretKey] {
        guard !items.isEmpty else { return [:] }
        let (response, privateKey) = try rateLimit.run { () throws(PlaybackError) -> (TransportResponse, ECP256.KeyAgreement.PrivateKey) in
            let privateKey = try Self.ephemeralKey()
            return (try send(signedRewrapRequest(items, privateKey: privateKey), route: "rewrap"), privateKey)
        }
        if response.status == 429 {
            throw PlaybackError.keyService(status: 429, route: "rewrap", refusal: PlaybackError.Refusal(
                status: 429, headers: response.headers, body: response.body))
        }
        return try Self.keys(from: response.body, ids: items.map(\.id), privateKey: privateKey)
    }

    /// The OpenTDF v2 rewrap request, its token signed with the request's ephemeral key.
    private func signedRewrapRequest(_ items: [Item], privateKey: ECP256.KeyAgreement.PrivateKey) throws(PlaybackError) -> TransportRequest {
        let signingKey: ECP256.Signing.PrivateKey
        do {
            signingKey = try ECP256.Signing.PrivateKey(rawRepresentation: privateKey.rawRepresentation)
        } catch {
            throw PlaybackError(.invalidArgument, "an ephemeral P-256 key could not be generated")
        }
        let requestBody = JSONWriter.string(.object(JSONObject([
            ("clientPublicKey", .string(privateKey.publicKey.pemRepresentation)), ("requests", .array(Self.bulkRequests(items))),
        ])), options: [.sortedKeys])
        let now = Date()
        let token: String
        do {
            token = try JWT.sign(claims: JSONObject([
                ("exp", JWT.numericDate(now.addingTimeInterval(60))), ("iat", JWT.numericDate(now)),
                ("requestBody", .string(requestBody)),
            ]), key: JWSSigningKey(p256: signingKey))
        } catch {
            throw PlaybackError(.invalidArgument, "the signed request token could not be made")
        }
        let body = JSONWriter.write(.object(JSONObject([("signedRequestToken", .string(token))])), options: [.sortedKeys])
        return TransportRequest(method: .post, url: baseURL + "/kas/v2/rewrap", headers: ["Content-Type": "application/json"],
                                body: body, credential: credential, maxResponseBytes: 4 << 20, extraAcceptedStatuses: [429])
    }

    /// One send; a transport failure or an unexpected status becomes the route's `PlaybackError`.
    private func send(_ request: TransportRequest, route: String) throws(PlaybackError) -> TransportResponse {
        do {
            return try client.sendSynchronously(request)
        } catch {
            throw PlaybackError.from(error, route: route)
        }
    }

    static func keys(from body: Data, ids: [String], privateKey: ECP256.KeyAgreement.PrivateKey) throws(PlaybackError) -> [String: SecretKey] {
        guard let value = try? JSONParser.parse(body), case .object(let root) = value,
              case .string(let sessionPEM)? = root["sessionPublicKey"],
              let sessionKey = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: sessionPEM),
              case .array(let responses)? = root["responses"] else {
            throw PlaybackError(.malformed, "the rewrap answer has no session public key or no responses")
        }
        var results: [String: JSONObject] = [:]
        for response in responses {
            guard case .object(let policy) = response, case .array(let list)? = policy["results"] else {
                throw PlaybackError(.malformed, "a rewrap policy result is not an object with results")
            }
            for item in list {
                guard case .object(let result) = item, case .string(let id)? = result["keyAccessObjectId"] else {
                    throw PlaybackError(.malformed, "a rewrap result has no key access object id")
                }
                results[id] = result
            }
        }
        var keys: [String: SecretKey] = [:]
        for id in ids {
            guard let result = results[id] else { throw PlaybackError(.malformed, "the rewrap answer left out a requested key") }
            guard case .string("permit")? = result["status"] else {
                if case .string(let text)? = result["error"], text.hasPrefix("bad request") {
                    throw PlaybackError(.malformed, "the key service refused a segment key as malformed")
                }
                throw PlaybackError(.denied, "the key service denied a segment key")
            }
            guard case .string(let wrappedText)? = result["kasWrappedKey"], let wrapped = try? Base64.decode(wrappedText) else {
                throw PlaybackError(.malformed, "a permitted rewrap result has no wrapped key")
            }
            let key: SecretKey
            do {
                key = try ECWrap.unwrap(wrapped, ephemeralPublicKey: sessionKey, with: privateKey)
            } catch {
                throw PlaybackError(.malformed, "a rewrapped key does not open with this request's ephemeral key")
            }
            guard key.byteCount == 32 else { throw PlaybackError(.malformed, "a rewrapped payload key is not 32 bytes") }
            keys[id] = key
        }
        return keys
    }
}
