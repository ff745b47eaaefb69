import Foundation
import MediaDRMJSON

extension DeliveryService {
    /// The most titles one page of `GET /media/v1/catalog` holds, and the page size when the
    /// request names none (docs/delivery.md#the-viewers-catalog).
    static let catalogPageLimit = 100
    static let catalogDefaultPageSize = 24

    /// `GET /media/v1/catalog` (bearer): the titles this viewer may start now, in the catalog's
    /// order (title, then asset id), one page at a time. Counted against the viewer's own catalog
    /// budget before anything is read; each title is kept only when
    /// `MediaAuthorizer.playbackStartRefusal` — the decision a playback start makes — finds no
    /// refusal, so the list never shows a title the start would refuse, nor hides one it allows.
    /// A title whose stored policy cannot be read is left out: no playback of it could start.
    ///
    /// - Parameters:
    ///   - after: the asset id the previous page ended with (its `next`); nil for the first page.
    ///   - limit: 1 to `catalogPageLimit` titles; nil for `catalogDefaultPageSize`.
    package func listCatalog(viewer: Identity, region: String?, after: String?, limit: String?) throws(DeliveryFailure) -> JSONValue {
        let now = clock()
        do {
            try media.consumeRateToken(.catalog, viewer: viewer, now: now)
        } catch {
            throw .media(error)
        }
        let pageSize = try Self.catalogPageSize(limit)
        let entries = try storeCall { () throws(StoreError) in try catalog.entries() }
        var start = entries.startIndex
        if let after {
            guard let index = entries.firstIndex(where: { $0.assetID == after.lowercased() }) else {
                throw .malformed("after names no catalogued title: ask for the first page again (without after)")
            }
            start = index + 1
        }
        var titles: [JSONValue] = []
        var next: String?
        for entry in entries[start...] {
            guard let policy = try? policy(of: entry),
                  try refusal(for: policy, of: entry, viewer: viewer, region: region, now: now) == nil else { continue }
            if titles.count == pageSize {
                // One more title this viewer may watch exists: the page ends at the last one listed.
                next = titles.last?.object?["assetId"]?.string
                break
            }
            titles.append(.object(JSONObject([
                ("assetId", .string(entry.assetID)),
            ] + entry.mediaIDMember + [
                ("title", .string(entry.title)),
                ("duration", .number(JSONNumber(Int64(entry.duration.rounded())))),
                ("profile", .string(entry.profile.rawValue)),
                ("components", .array(entry.components.map(JSONValue.string))),
            ])))
        }
        var members: [(String, JSONValue)] = [("titles", .array(titles))]
        if let next { members.append(("next", .string(next))) }
        return .object(JSONObject(members))
    }

    /// `limit` read: digits only, 1 to `catalogPageLimit`.
    static func catalogPageSize(_ limit: String?) throws(DeliveryFailure) -> Int {
        guard let limit else { return catalogDefaultPageSize }
        guard limit.utf8.count <= 3, limit.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(limit),
              (1...catalogPageLimit).contains(value) else {
            throw .malformed("limit must be a whole number from 1 to \(catalogPageLimit)")
        }
        return value
    }
}
