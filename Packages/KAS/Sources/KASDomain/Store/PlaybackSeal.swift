import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON

/// How the playback stores (`SQLitePlaybackStore`, `RedisPlaybackStore`) seal a playback:
/// AES-256-GCM under HKDF-SHA256(playback id) with the record's storage key as associated data,
/// over compact JSON of everything the licence URL and the renewal need (the verified identity
/// with all its claims, the asset, the DRM system). Only a holder of the playback id can open
/// it; a value moved to another record does not open. Neither store holds a subject in clear.
enum PlaybackSeal {
    /// HKDF `info`: names this use of the id, so the derived key serves nothing else.
    static let keyInfo = Data("arkavo kas playback record v1".utf8)

    /// A record's storage key, the seal's associated data: its Redis key, `playback:` + SHA-256
    /// (hex) of the id after the store's prefix. The SQLite store seals under the name of the
    /// default prefix (`kas:`), so a record `kas store migrate` copies into Redis opens there.
    static func storageKey(id: String, prefix: String = "kas:") -> String {
        prefix + "playback:" + MediaSessionID.hash(id)
    }

    static func seal(_ playback: PlaybackRecord, storageKey: String) throws(StoreError) -> String {
        let identity = playback.identity
        var members: [(String, JSONValue)] = [
            ("sub", .string(identity.subject)),
            ("iss", .string(identity.issuer)),
            ("entitlements", .array(identity.entitlements.map(JSONValue.string))),
            ("rentals", .object(JSONObject(identity.rentals.map { ($0.key.uuidString, .number(JSONNumber($0.value))) }))),
            ("claims", .object(identity.claims)),
        ]
        if let expiresAt = identity.expiresAt {
            members.append(("exp", .number(JSONNumber(expiresAt.timeIntervalSince1970))))
        }
        let plaintext = JSONWriter.write(.object(JSONObject([
            ("identity", .object(JSONObject(members))),
            ("asset", .string(playback.assetID)),
            ("drm", .string(playback.drmSystem.rawValue)),
        ])))
        do {
            let box = try AESCipher.GCM.seal(plaintext, using: try key(playback.id), authenticating: Data(storageKey.utf8))
            return Base64.encode(box.combined)
        } catch {
            throw StoreError(.unavailable, "a playback cannot be sealed")
        }
    }

    /// The playback sealed in `text`; a value that does not open or parse is an error (never
    /// taken as absent: a store that cannot answer is 503, not 404).
    static func open(_ text: String, id: String, storageKey: String, expires: Date) throws(StoreError) -> PlaybackRecord {
        let unreadable = StoreError(.unavailable, "a stored playback cannot be opened")
        let plaintext: Data
        do {
            let box = try AESCipher.GCM.SealedBox(combined: try Base64.decode(text))
            plaintext = try AESCipher.GCM.open(box, using: try key(id), authenticating: Data(storageKey.utf8))
        } catch {
            throw unreadable
        }
        guard case .object(let root)? = try? JSONParser.parse(plaintext), case .object(let who)? = root["identity"],
              case .string(let assetID)? = root["asset"], let drm = root["drm"]?.string.flatMap(DeliveryDRMSystem.init(rawValue:)),
              case .string(let subject)? = who["sub"], case .string(let issuer)? = who["iss"],
              case .array(let entitlementValues)? = who["entitlements"], case .object(let rentalValues)? = who["rentals"],
              case .object(let claims)? = who["claims"]
        else { throw unreadable }
        var rentals: [UUID: Int64] = [:]
        for (uuidText, value) in rentalValues {
            guard let uuid = UUID(uuidString: uuidText), case .number(let number) = value, let time = number.int64 else {
                throw unreadable
            }
            rentals[uuid] = time
        }
        var expiresAt: Date?
        if let value = who["exp"] {
            guard case .number(let number) = value, let seconds = number.double else { throw unreadable }
            expiresAt = Date(timeIntervalSince1970: seconds)
        }
        let identity = Identity(subject: subject, issuer: issuer, entitlements: entitlementValues.compactMap(\.string),
                                rentals: rentals, claims: claims, expiresAt: expiresAt)
        return PlaybackRecord(id: id, identity: identity, assetID: assetID, drmSystem: drm, expires: expires)
    }

    /// HKDF-SHA256(playback id), 32 bytes: the AES-256 key of one playback.
    private static func key(_ id: String) throws(CryptoError) -> SecretKey {
        try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: Data(id.utf8)), salt: Data(), info: keyInfo, outputByteCount: 32)
    }
}
