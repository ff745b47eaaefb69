import Foundation
import MediaDRMJSON

/// The body of renew (`POST /media/v1/offline-license/{licenseId}/renew`) and release
/// (`DELETE /media/v1/offline-license/{licenseId}`): `{"firstPlayedAt"?: "<RFC 3339>"}`, the first
/// offline play the player recorded, reported at the next contact (docs/offline.md). An empty
/// body is the same as `{}`.
public struct OfflinePlayReport: Sendable, Equatable {
    /// The member names, each written once.
    static let members: Set<String> = ["firstPlayedAt"]

    public var firstPlayedAt: Date?

    public init(firstPlayedAt: Date? = nil) {
        self.firstPlayedAt = firstPlayedAt
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if let firstPlayedAt { members.append(("firstPlayedAt", .string(OfflineTimestamp.rfc3339(firstPlayedAt)))) }
        return .object(JSONObject(members))
    }

    public init(json: JSONValue) throws(OfflineLicenseError) {
        guard case .object(let object) = json, object.keys.allSatisfy(Self.members.contains) else {
            throw OfflineLicenseError(.malformed, "the body must be an object with at most firstPlayedAt")
        }
        if let value = object["firstPlayedAt"] {
            guard case .string(let text) = value, let date = OfflineTimestamp.date(rfc3339: text) else {
                throw OfflineLicenseError(.malformed, "firstPlayedAt must be an RFC 3339 date-time")
            }
            firstPlayedAt = date
        }
    }
}
