import Foundation
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia

/// A call of a playback's ClearKey licence URL (`POST /media/v1/playback/{id}/clearkey?expires=&sig=`):
/// what the URL says and the body, as the route read them. Nothing here is trusted until
/// `DeliveryService.clearKeyLicense` has checked the signature.
package struct ClearKeyLicenseRequest: Sendable {
    package var playbackID: String?
    package var expires: String?
    package var signature: String?
    package var body: Data

    package init(playbackID: String?, expires: String?, signature: String?, body: Data) {
        self.playbackID = playbackID
        self.expires = expires
        self.signature = signature
        self.body = body
    }
}

extension DeliveryService {
    /// The largest licence request read, and the most key ids one may name.
    static let maxClearKeyRequestBytes = 16 * 1024
    static let maxClearKeyIDs = 16

    /// The signed ClearKey licence URL of a playback, valid `licenseURLSeconds`.
    func clearKeyLicenseURL(playbackID: String, now: Date) -> String {
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(settings.licenseURLSeconds)
        return publicURL + "/media/v1/playback/\(playbackID)/clearkey?" + licenses.query(.clearKey, playbackID: playbackID, expires: expires)
    }

    /// `POST /media/v1/playback/{id}/clearkey?expires=&sig=`: the W3C EME ClearKey licence
    /// (EME §9.1.3 request `{"kids":[…],"type":"temporary"}`, §9.1.4 answer, a JSON Web Key Set
    /// with base64url key ids and keys, unpadded). No bearer header is needed: the URL's signature
    /// authorizes it (`signedPlayback`). Then, in order: the viewer's key-request token (one per
    /// licence, however many keys), the body, every key id one of the asset's (an unknown or
    /// foreign one refuses the whole request, `key_id_unknown`), then for each component named a
    /// media session of the playback (one licence of a component at a time: `LicenseSerializer`)
    /// and the media service's key request under the playback's
    /// viewer: entitlement, rental windows and the first play recorded, the stream limit, the
    /// region, audited as any key request is.
    package func clearKeyLicense(_ request: ClearKeyLicenseRequest,
                                 region: String?) throws(DeliveryFailure) -> (answer: JSONValue, viewer: Identity) {
        let now = clock()
        let playback = try signedPlayback(id: request.playbackID, .clearKey, expires: request.expires, signature: request.signature,
                                          now: now)
        let entry = try entry(playback.assetID)
        guard let manifest = entry.manifest, !entry.keyIDs.isEmpty else { throw .licenseURLRefused(code: "license_url_invalid") }
        do {
            try media.consumeRateToken(.keyRequest, viewer: playback.identity, now: now)
        } catch {
            media.countDenial(error.auditReason)
            throw .media(error)
        }
        let kids = try Self.clearKeyIDs(request.body)
        var components: [(kid: Data, component: String)] = []
        for kid in kids {
            guard let key = entry.keyIDs.first(where: { $0.keyID == kid }) else {
                audit("clearkey_license", viewer: playback.identity, asset: entry.assetID, decision: .deny, reason: "key_id_unknown", now: now)
                media.countDenial("key_id_unknown")
                throw .keyIDUnknown
            }
            components.append((kid, key.component))
        }
        var keys: [String: Data] = [:]
        for component in components.map(\.component) where keys[component] == nil {
            keys[component] = try licenceCalls.serialized(playbackID: playback.id, component: component) { () throws(DeliveryFailure) -> Data in
                let sessionID = try startSession(assetID: entry.assetID, protocol: .tdf, component: component, playbackID: playback.id,
                                                 viewer: playback.identity)
                let keyRequest = MediaKeyRequest(assetID: entry.assetID, sessionID: sessionID, component: component,
                                                 manifest: Array(manifest), delivery: .clearKey, device: nil, region: region)
                do throws(MediaFailure) {
                    return try media.keyRequest(.success(keyRequest), viewer: playback.identity, rateLimited: false).wrappedKey
                } catch {
                    throw .media(error)
                }
            }
        }
        let jwks: [JSONValue] = components.map { item in
            .object(JSONObject([("kty", .string("oct")), ("kid", .string(Base64URL.encode(item.kid))),
                                ("k", .string(Base64URL.encode(keys[item.component] ?? Data())))]))
        }
        return (.object(JSONObject([("keys", .array(jwks)), ("type", .string("temporary"))])), playback.identity)
    }

    /// The key ids of an EME ClearKey licence request: strict JSON, members `kids` (1 to
    /// `maxClearKeyIDs` distinct base64url texts of 16 bytes, unpadded) and `type` (`temporary`,
    /// the only session type served; it may be left out).
    static func clearKeyIDs(_ body: Data) throws(DeliveryFailure) -> [Data] {
        let malformed = DeliveryFailure.malformed("the body must be an EME ClearKey licence request: {\"kids\":[…],\"type\":\"temporary\"}")
        guard body.count <= maxClearKeyRequestBytes,
              case .object(let object)? = try? JSONParser.parse(body, limits: JSONLimits(maxBytes: maxClearKeyRequestBytes, maxDepth: 4)),
              object.members.allSatisfy({ $0.key == "kids" || $0.key == "type" }),
              case .array(let items)? = object["kids"], (1...maxClearKeyIDs).contains(items.count)
        else { throw malformed }
        if let type = object["type"], type != .string("temporary") {
            throw .malformed("only the temporary ClearKey session type is served")
        }
        var kids: [Data] = []
        for item in items {
            guard case .string(let text) = item, !text.contains("="), let kid = try? Base64URL.decode(text), kid.count == 16,
                  !kids.contains(kid)
            else { throw malformed }
            kids.append(kid)
        }
        return kids
    }
}
