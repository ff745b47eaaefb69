import Foundation
import MediaDRMJSON

/// The body of `POST /media/v1/backend/playback` (docs/delivery.md "DRM-X's backend call"): the
/// viewer a customer backend vouches for and DRM-X's members, read into the playback request
/// `POST /media/v1/playback` takes and the viewer it is for.
///
/// ```json
/// {"viewer": {"subject": "alice", "entitlements": ["https://example.com/attr/tier/value/gold"], "rentals": {}},
///  "contentId": "Ab12cd34", "contentType": "vod", "drmSystem": "fairplay", "manifestTypes": ["hls"], "clientPlatform": "ios"}
/// ```
///
/// Members it does not know, at the top and in `viewer`, are skipped and kept nowhere: a
/// customer's backend sends its own, and they must not reach a log or an audit record.
package struct BackendPlaybackRequest: Sendable {
    /// The playback members, checked by `PlaybackRequest(json:)` as the viewer's own route checks them.
    static let playbackMembers = ["drmSystem", "manifestTypes", "clientPlatform"]
    /// Bounds on what a backend may vouch for, so a body cannot grow a viewer without limit.
    static let maximumSubjectBytes = 256
    static let maximumClaimItems = 64
    static let maximumClaimBytes = 512

    package var playback: PlaybackRequest
    package var viewer: Identity

    /// DRM-X's `contentType`: `live` for a live title of the catalog (docs/live.md), `vod` for any other.
    enum ContentType: String {
        case vod
        case live
    }

    /// Reads the body for a backend whose viewers are keyed by `issuer`. `contentId` is the
    /// title's media id or asset id; `contentType` is `vod` or `live`.
    package init(json: JSONValue, issuer: String) throws(DeliveryFailure) {
        guard case .object(let body) = json else { throw .malformed("malformed backend playback request") }
        guard case .string(let contentID)? = body["contentId"], (1...128).contains(contentID.utf8.count) else {
            throw .malformed("contentId is the title's media id or asset id")
        }
        guard case .string(let typeText)? = body["contentType"], let contentType = ContentType(rawValue: typeText) else {
            throw .malformed("contentType is vod or live")
        }
        var members: [(String, JSONValue)] = [("assetId", .string(contentID))]
        for name in Self.playbackMembers { if let value = body[name] { members.append((name, value)) } }
        var playback = try PlaybackRequest(json: .object(JSONObject(members)))
        playback.live = contentType == .live
        self.playback = playback
        viewer = try Self.identity(body["viewer"], issuer: issuer)
    }

    /// `viewer`: `subject` (1 to 256 bytes), and optionally `entitlements` (strings) and
    /// `rentals` (policy uuid → Unix seconds of the first play window's end), as a delivery
    /// token's claims carry them; read by the delivery token's own reader, with `iss` the
    /// client's issuer.
    package static func identity(_ value: JSONValue?, issuer: String) throws(DeliveryFailure) -> Identity {
        guard case .object(let viewer)? = value, case .string(let subject)? = viewer["subject"],
              (1...maximumSubjectBytes).contains(subject.utf8.count)
        else { throw .malformed("viewer is an object with a subject of 1 to \(maximumSubjectBytes) bytes") }
        var claims: [(String, JSONValue)] = [("sub", .string(subject)), ("iss", .string(issuer))]
        if let value = viewer["entitlements"] {
            guard case .array(let items) = value, items.count <= maximumClaimItems,
                  items.allSatisfy({ ($0.string?.utf8.count).map { (1...maximumClaimBytes).contains($0) } ?? false })
            else { throw .malformed("viewer.entitlements is a list of at most \(maximumClaimItems) attribute strings") }
            claims.append(("entitlements", value))
        }
        if let value = viewer["rentals"] {
            guard case .object(let rentals) = value, rentals.count <= maximumClaimItems,
                  rentals.allSatisfy({ UUID(uuidString: $0.key) != nil && $0.value.int64 != nil })
            else { throw .malformed("viewer.rentals maps at most \(maximumClaimItems) policy uuids to Unix seconds") }
            claims.append(("rentals", value))
        }
        return DeliveryTokenKey.identity(subject: subject, claims: JSONObject(claims))
    }
}
