import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// The payload of an offline licence, the compact JWS the KAS answers to
/// `POST /media/v1/offline-license` (docs/offline.md):
///
/// ```json
/// {"asset": "<policy uuid>", "sub": "<viewer>", "lid": "<licence id>", "cnf": {"jkt": "<device key thumbprint>"},
///  "iat": 1764612000, "exp": 1765216800, "playbackWindow": 172800, "rentalEndsAt": 1764784800,
///  "keys": [{"component": "video", "kid": "<hex>", "ephemeralPublicKey": "-----BEGIN PUBLIC KEY-----…",
///            "wrappedKey": "<base64>"}]}
/// ```
///
/// `iat`, `exp` and `rentalEndsAt` are NumericDates (whole seconds). `playbackWindow` counts from
/// the first offline play; absent, viewing lasts until `exp`. `rentalEndsAt` is present for a
/// rental whose playback window has started; `exp` is never past it. The schema is closed: a
/// player refuses a licence with a member it does not know.
public struct OfflineLicense: Sendable, Equatable {
    /// The JWS `typ` header (RFC 8725 §3.11: explicit typing, so no other JWT of the same key
    /// is taken for a licence).
    public static let type = "mediadrm-offline-license+jwt"
    /// The member names, each written once.
    static let members: Set<String> = ["asset", "sub", "lid", "cnf", "iat", "exp", "playbackWindow", "rentalEndsAt", "keys"]
    /// Longest string member read (asset, sub, lid, jkt).
    static let maxStringBytes = 1_024

    /// The policy uuid.
    public var asset: String
    /// The viewer the licence was issued to (the token's subject).
    public var subject: String
    /// The licence id, the `{licenseId}` of renew and release.
    public var licenseID: String
    /// `cnf.jkt`: the device key's thumbprint (`OfflineDeviceKey.thumbprint`).
    public var deviceThumbprint: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var playbackWindowSeconds: Int64?
    public var rentalEndsAt: Int64?
    public var keys: [OfflineLicenseKey]

    public init(asset: String, subject: String, licenseID: String, deviceThumbprint: String, issuedAt: Int64,
                expiresAt: Int64, playbackWindowSeconds: Int64?, rentalEndsAt: Int64?, keys: [OfflineLicenseKey]) {
        self.asset = asset
        self.subject = subject
        self.licenseID = licenseID
        self.deviceThumbprint = deviceThumbprint
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.playbackWindowSeconds = playbackWindowSeconds
        self.rentalEndsAt = rentalEndsAt
        self.keys = keys
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("asset", .string(asset)), ("sub", .string(subject)), ("lid", .string(licenseID)),
            ("cnf", .object(JSONObject([("jkt", .string(deviceThumbprint))]))),
            ("iat", .number(JSONNumber(issuedAt))), ("exp", .number(JSONNumber(expiresAt))),
        ]
        if let playbackWindowSeconds { members.append(("playbackWindow", .number(JSONNumber(playbackWindowSeconds)))) }
        if let rentalEndsAt { members.append(("rentalEndsAt", .number(JSONNumber(rentalEndsAt)))) }
        members.append(("keys", .array(keys.map(\.jsonValue))))
        return .object(JSONObject(members))
    }

    /// Reads a payload strictly: closed schema, exact types, integers written as integers,
    /// `exp` after `iat`, one or two keys of distinct components.
    public init(json: JSONValue) throws(OfflineLicenseError) {
        guard case .object(let object) = json else { throw OfflineLicenseError(.malformed, "the payload is not a JSON object") }
        if object.keys.contains(where: { !Self.members.contains($0) }) {
            throw OfflineLicenseError(.malformed, "the payload has an unknown member")
        }
        let asset = try Self.string(object, "asset")
        let subject = try Self.string(object, "sub")
        let licenseID = try Self.string(object, "lid")
        guard case .object(let cnf)? = object["cnf"], cnf.count == 1, case .string(let jkt)? = cnf["jkt"],
              !jkt.isEmpty, jkt.utf8.count <= Self.maxStringBytes else {
            throw OfflineLicenseError(.malformed, "cnf must be an object of exactly jkt")
        }
        guard let issuedAt = try Self.integer(object, "iat"), let expiresAt = try Self.integer(object, "exp") else {
            throw OfflineLicenseError(.malformed, "iat and exp are required")
        }
        guard expiresAt > issuedAt else { throw OfflineLicenseError(.malformed, "exp must be after iat") }
        let window = try Self.integer(object, "playbackWindow")
        if let window, window <= 0 { throw OfflineLicenseError(.malformed, "playbackWindow must be positive") }
        let rentalEndsAt = try Self.integer(object, "rentalEndsAt")
        guard case .array(let items)? = object["keys"], (1...MediaComponentKind.allCases.count).contains(items.count) else {
            throw OfflineLicenseError(.malformed, "keys must be an array of one key per component")
        }
        var keys: [OfflineLicenseKey] = []
        for item in items { keys.append(try OfflineLicenseKey(json: item)) }
        guard Set(keys.map(\.component)).count == keys.count else {
            throw OfflineLicenseError(.malformed, "keys names a component twice")
        }
        self.init(asset: asset, subject: subject, licenseID: licenseID, deviceThumbprint: jkt, issuedAt: issuedAt,
                  expiresAt: expiresAt, playbackWindowSeconds: window, rentalEndsAt: rentalEndsAt, keys: keys)
    }

    /// The key of one component, nil when the licence has none.
    public func key(for component: MediaComponentKind) -> OfflineLicenseKey? { keys.first { $0.component == component } }

    private static func string(_ object: JSONObject, _ name: String) throws(OfflineLicenseError) -> String {
        guard case .string(let text)? = object[name], !text.isEmpty, text.utf8.count <= maxStringBytes else {
            throw OfflineLicenseError(.malformed, "\(name) must be a non-empty string")
        }
        return text
    }

    private static func integer(_ object: JSONObject, _ name: String) throws(OfflineLicenseError) -> Int64? {
        guard let value = object[name] else { return nil }
        guard case .number(let number) = value, let n = number.int64, String(n) == number.text, n >= 0 else {
            throw OfflineLicenseError(.malformed, "\(name) must be a non-negative integer")
        }
        return n
    }
}
