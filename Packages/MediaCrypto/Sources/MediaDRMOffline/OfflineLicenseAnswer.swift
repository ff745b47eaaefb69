import Foundation
import MediaDRMJSON

/// The success body of issuing and of renewing (docs/offline.md):
/// `{"license": "<compact JWS>", "licenseId", "expiresAt": "<RFC 3339>"}`.
public struct OfflineLicenseAnswer: Sendable, Equatable {
    /// The member names, each written once.
    static let members: Set<String> = ["license", "licenseId", "expiresAt"]

    /// The compact JWS (`OfflineLicense.verified(_:signingKeys:)` reads it).
    public var license: String
    public var licenseID: String
    /// The licence's `exp`.
    public var expiresAt: Date

    public init(license: String, licenseID: String, expiresAt: Date) {
        self.license = license
        self.licenseID = licenseID
        self.expiresAt = expiresAt
    }

    public var jsonValue: JSONValue {
        .object(JSONObject([
            ("license", .string(license)), ("licenseId", .string(licenseID)),
            ("expiresAt", .string(OfflineTimestamp.rfc3339(expiresAt))),
        ]))
    }

    public init(json: JSONValue) throws(OfflineLicenseError) {
        guard case .object(let object) = json, object.keys.allSatisfy(Self.members.contains),
              case .string(let license)? = object["license"], !license.isEmpty,
              license.utf8.count <= OfflineLicense.maxCompactLength,
              case .string(let id)? = object["licenseId"], !id.isEmpty,
              case .string(let text)? = object["expiresAt"], let expiresAt = OfflineTimestamp.date(rfc3339: text)
        else {
            throw OfflineLicenseError(.malformed, "the answer must be an object of license, licenseId and expiresAt (RFC 3339)")
        }
        self.init(license: license, licenseID: id, expiresAt: expiresAt)
    }
}
