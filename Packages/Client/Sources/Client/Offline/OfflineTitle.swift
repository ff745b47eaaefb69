import Foundation
import MediaDRMJSON

/// One downloaded title as the library records it (`titles/NAME/title.json`): what was
/// downloaded, from where, for which viewer, the licence and the signing keys kept to verify it
/// offline, and what happened to it since. Never the bearer token or a clear key.
public struct OfflineTitle: Sendable, Equatable {
    public enum State: String, Sendable {
        /// The package is complete and verified and a licence is held.
        case licensed
        /// The licence was given back; the package stays until `delete`.
        case released
    }

    /// The title's name in the library.
    public let name: String
    /// The package URL it was downloaded from, without query or fragment.
    public var source: String
    /// The key service that issued the licence (renewals and releases go there).
    public var keyService: String
    /// The asset (the package's policy uuid).
    public var assetID: String
    /// The viewer (`sub`) the licence was issued to.
    public var viewer: String
    /// The package's size and SHA-256 (hex) when it was verified, checked before every play.
    public var packageBytes: UInt64
    public var packageSHA256: String
    public var state: State
    /// The compact JWS licence (its wrapped keys open only with this library's device key).
    public var license: String
    public var licenseID: String
    /// The licence's `exp`, seconds since the epoch.
    public var expiresAt: Int64
    /// The key service's licence-signing keys (a JWKS) as fetched at download or last renewal.
    public var signingKeys: JSONObject
    /// When this library first played the title offline (seconds since the epoch); reported to
    /// the key service at the next renewal or release.
    public var firstPlayedAt: Int64?

    public init(name: String, source: String, keyService: String, assetID: String, viewer: String, packageBytes: UInt64,
                packageSHA256: String, state: State, license: String, licenseID: String, expiresAt: Int64,
                signingKeys: JSONObject, firstPlayedAt: Int64? = nil) {
        self.name = name
        self.source = source
        self.keyService = keyService
        self.assetID = assetID
        self.viewer = viewer
        self.packageBytes = packageBytes
        self.packageSHA256 = packageSHA256
        self.state = state
        self.license = license
        self.licenseID = licenseID
        self.expiresAt = expiresAt
        self.signingKeys = signingKeys
        self.firstPlayedAt = firstPlayedAt
    }

    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(name)), ("source", .string(source)), ("keyService", .string(keyService)),
            ("assetId", .string(assetID)), ("viewer", .string(viewer)),
            ("packageBytes", .number(JSONNumber(packageBytes))), ("packageSha256", .string(packageSHA256)),
            ("state", .string(state.rawValue)), ("license", .string(license)), ("licenseId", .string(licenseID)),
            ("expiresAt", .number(JSONNumber(expiresAt))), ("signingKeys", .object(signingKeys)),
        ]
        if let firstPlayedAt { members.append(("firstPlayedAt", .number(JSONNumber(firstPlayedAt)))) }
        return .object(JSONObject(members))
    }

    init(json data: Data) throws(OfflineError) {
        do {
            guard case .object(let object) = try JSONParser.parse(data) else { throw JSONError(.typeMismatch, "not an object") }
            name = try object.requireString("name")
            source = try object.requireString("source")
            keyService = try object.requireString("keyService")
            assetID = try object.requireString("assetId")
            viewer = try object.requireString("viewer")
            guard let bytes = try object.requireNumber("packageBytes").uint64 else {
                throw JSONError(.typeMismatch, "packageBytes")
            }
            packageBytes = bytes
            packageSHA256 = try object.requireString("packageSha256")
            guard let state = State(rawValue: try object.requireString("state")) else { throw JSONError(.typeMismatch, "state") }
            self.state = state
            license = try object.requireString("license")
            licenseID = try object.requireString("licenseId")
            expiresAt = try object.requireInt64("expiresAt")
            signingKeys = try object.requireObject("signingKeys")
            firstPlayedAt = try object.optionalInt64("firstPlayedAt")
        } catch {
            throw OfflineError(.library, "a title record is damaged: delete the title and download it again")
        }
    }
}
