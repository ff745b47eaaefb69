import Foundation
import MediaDRMJSON

/// One downloaded title as the library records it (`titles/NAME/title.json`): what was
/// downloaded, from where, for which viewer, and the licence. A plain record: nothing in it is
/// trusted for an offline play unless something the user cannot edit vouches for it (the
/// licence's signature against the pinned keys, the package's digest against the licence's
/// keys); the first offline play lives in a sealed record (docs/offline.md). Never the bearer
/// token or a clear key.
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
    /// Set when the record was written by an earlier player (it held the licence-signing keys
    /// and the first play in plain JSON): such a title plays offline again after one online
    /// renewal, which reads its plain first play once (`earlierFirstPlayedAt`) and seals it.
    let storedByEarlierPlayer: Bool
    let earlierFirstPlayedAt: Int64?

    public init(name: String, source: String, keyService: String, assetID: String, viewer: String, packageBytes: UInt64,
                packageSHA256: String, state: State, license: String, licenseID: String, expiresAt: Int64) {
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
        storedByEarlierPlayer = false
        earlierFirstPlayedAt = nil
    }

    /// The record as the current player writes it (nothing an earlier player's record held).
    var current: OfflineTitle {
        OfflineTitle(name: name, source: source, keyService: keyService, assetID: assetID, viewer: viewer,
                     packageBytes: packageBytes, packageSHA256: packageSHA256, state: state, license: license,
                     licenseID: licenseID, expiresAt: expiresAt)
    }

    var jsonValue: JSONValue {
        let members: [(String, JSONValue)] = [
            ("name", .string(name)), ("source", .string(source)), ("keyService", .string(keyService)),
            ("assetId", .string(assetID)), ("viewer", .string(viewer)),
            ("packageBytes", .number(JSONNumber(packageBytes))), ("packageSha256", .string(packageSHA256)),
            ("state", .string(state.rawValue)), ("license", .string(license)), ("licenseId", .string(licenseID)),
            ("expiresAt", .number(JSONNumber(expiresAt))),
        ]
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
            // An earlier player's record: its keys are never used again (they were the user's to
            // replace); its first play is read once, by the renewal that seals it.
            storedByEarlierPlayer = object["signingKeys"] != nil
            earlierFirstPlayedAt = storedByEarlierPlayer ? try object.optionalInt64("firstPlayedAt") : nil
        } catch {
            throw OfflineError(.library, "a title record is damaged: delete the title and download it again")
        }
    }
}
