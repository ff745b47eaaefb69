import Foundation
import MediaDRMJSON

/// The claims of a validated token. Registered claims are typed; the project's claims are
/// read and type-checked at validation (a token with a malformed `entitlements` or `rentals`
/// is refused, not silently given none); everything else is in `raw`.
public struct JWTClaims: Sendable {
    /// The protected header.
    public let header: JSONObject
    /// The whole claims set as received.
    public let raw: JSONObject
    public let issuer: String
    /// `sub`: the viewer.
    public let subject: String?
    /// `aud`, always as a list.
    public let audience: [String]
    public let expiresAt: Date?
    public let notBefore: Date?
    public let issuedAt: Date?
    public let jwtID: String?
    /// `entitlements`: attribute value FQNs the viewer holds; empty when absent.
    public let entitlements: [String]
    /// `rentals`: policy uuid -> purchase time (Unix seconds); empty when absent.
    public let rentals: [UUID: Date]

    /// Any claim by name.
    public subscript(_ name: String) -> JSONValue? { raw[name] }

    /// The purchase time of the rental of the policy with this uuid (any letter case).
    public func rentalPurchaseTime(policyUUID: String) -> Date? {
        UUID(uuidString: policyUUID).flatMap { rentals[$0] }
    }

    public static func entitlements(in claims: JSONObject) throws(JOSEError) -> [String] {
        try claims.joseStringArray(
            "entitlements", JOSEError(.invalidClaim, "entitlements is not an array of strings")) ?? []
    }

    public static func rentals(in claims: JSONObject) throws(JOSEError) -> [UUID: Date] {
        guard let value = claims["rentals"] else { return [:] }
        let invalid = JOSEError(.invalidClaim, "rentals is not an object of uuid to purchase time")
        guard case .object(let object) = value else { throw invalid }
        var rentals: [UUID: Date] = [:]
        for (key, _) in object {
            // Two spellings of one uuid would make the purchase time ambiguous.
            guard let uuid = UUID(uuidString: key), rentals[uuid] == nil,
                  let seconds = try object.joseNumericDate(key, invalid), seconds >= 0
            else { throw invalid }
            rentals[uuid] = Date(timeIntervalSince1970: seconds)
        }
        return rentals
    }
}
