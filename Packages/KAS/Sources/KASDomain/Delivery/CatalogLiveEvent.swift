import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// What makes a catalog entry live (`kas assets add DIR/ --live`, docs/live.md "Live on the
/// KAS"): the event's window and the regions blacked out for it. The stream's own policy still
/// applies in full (entitlements, rental, its region rules, the stream limit); the event only
/// narrows when and where its keys leave.
public struct CatalogLiveEvent: Sendable, Equatable {
    /// No key before this (nil: from the start of the stream).
    public var startsAt: Date?
    /// No key later than this plus the DVR range (nil: while the stream runs).
    public var endsAt: Date?
    /// ISO 3166-1 alpha-2 regions where the event is not shown (upper case).
    public var blackoutRegions: [String]

    public init(startsAt: Date? = nil, endsAt: Date? = nil, blackoutRegions: [String] = []) {
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.blackoutRegions = blackoutRegions
    }

    /// The event's refusal of a viewer at `now` in `region` (nil: allowed), keys staying
    /// available `dvrSeconds` after the end. A blackout list needs a known region (fail closed,
    /// as the policy's region rules).
    public func refusal(region: String?, now: Date, dvrSeconds: Int) -> MediaDenial? {
        if let startsAt, now < startsAt { return .liveEventNotStarted }
        if let endsAt, now > endsAt.addingTimeInterval(TimeInterval(dvrSeconds)) { return .liveEventEnded }
        if !blackoutRegions.isEmpty {
            guard let region else { return .regionUnknown }
            if blackoutRegions.contains(region.uppercased()) { return .regionBlocked }
        }
        return nil
    }

    /// The stores' text: `{"blackoutRegions":["XX"],"endsAt":<Unix s>,"startsAt":<Unix s>}`,
    /// the times whole seconds and absent when open.
    package var text: String {
        var members: [(String, JSONValue)] = [("blackoutRegions", .array(blackoutRegions.map(JSONValue.string)))]
        if let endsAt { members.append(("endsAt", .number(JSONNumber(Int64(endsAt.timeIntervalSince1970))))) }
        if let startsAt { members.append(("startsAt", .number(JSONNumber(Int64(startsAt.timeIntervalSince1970))))) }
        return String(decoding: JSONWriter.write(.object(JSONObject(members)), options: [.sortedKeys]), as: UTF8.self)
    }

    /// `text` read back; nil when it is not that shape (the entry is then unreadable).
    package init?(text: String) {
        guard case .object(let object)? = try? JSONParser.parse(Array(text.utf8), limits: JSONLimits(maxBytes: 1 << 16, maxDepth: 3)),
              case .array(let regions)? = object["blackoutRegions"] else { return nil }
        var blackout: [String] = []
        for case .string(let region) in regions { blackout.append(region) }
        guard blackout.count == regions.count else { return nil }
        func time(_ name: String) -> Date?? {
            guard let value = object[name] else { return .some(nil) }
            guard case .number(let number) = value, let seconds = number.int64 else { return nil }
            return .some(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        guard let startsAt = time("startsAt"), let endsAt = time("endsAt") else { return nil }
        self.init(startsAt: startsAt, endsAt: endsAt, blackoutRegions: blackout)
    }

    /// The playback description's `live` member (docs/delivery.md#playbacks) and `kas assets list
    /// --json`'s: the window as RFC 3339 times, each absent when open, and the blackout regions.
    package var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = []
        if let startsAt { members.append(("startsAt", .string(DeliveryService.timestamp(startsAt)))) }
        if let endsAt { members.append(("endsAt", .string(DeliveryService.timestamp(endsAt)))) }
        members.append(("blackoutRegions", .array(blackoutRegions.map(JSONValue.string))))
        return .object(JSONObject(members))
    }
}
