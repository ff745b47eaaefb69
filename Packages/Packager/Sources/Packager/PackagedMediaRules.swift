import Foundation
import MediaDRMJSON

/// The `arkavo:media` policy member: playback rules the KAS enforces, bound into the policy so
/// every policy binding covers them. Only the rules that were given are written.
///
/// ```json
/// "arkavo:media": {"v": 1,
///   "rental": {"purchaseWindowSeconds": 2592000, "playbackWindowSeconds": 172800},
///   "maxConcurrentStreams": 2, "allowedRegions": ["US", "CA"], "blockedRegions": ["KP"],
///   "hdcp": "type1", "minSecurityLevel": "main", "allowVirtualMachines": false}
/// ```
public struct PackagedMediaRules: Sendable, Equatable {
    public enum HDCP: String, Sendable, CaseIterable { case none, type0, type1 }
    public enum SecurityLevel: String, Sendable, CaseIterable { case software, baseline, main }

    /// Seconds from purchase within which playback must start.
    public var rentalPurchaseWindow: Int64?
    /// Seconds from the first playback within which the rental may be watched.
    public var rentalPlaybackWindow: Int64?
    public var maxConcurrentStreams: Int?
    /// ISO 3166-1 alpha-2 codes, upper case.
    public var allowedRegions: [String]?
    public var blockedRegions: [String]?
    public var hdcp: HDCP?
    public var minimumSecurityLevel: SecurityLevel?
    /// false forbids playback in virtual machines.
    public var allowVirtualMachines: Bool?

    public init() {}

    public var isEmpty: Bool { self == PackagedMediaRules() }

    /// Checks the values (positive windows and counts, two-letter regions, no region both
    /// allowed and blocked).
    public func validate() throws(PackagerError) {
        for (name, value) in [("--rental-purchase-window", rentalPurchaseWindow), ("--rental-playback-window", rentalPlaybackWindow)] {
            if let value, value <= 0 { throw PackagerError(.invalidArgument, "\(name) must be a positive number of seconds") }
        }
        if let n = maxConcurrentStreams, n <= 0 { throw PackagerError(.invalidArgument, "--max-streams must be positive") }
        for (name, list) in [("--allowed-regions", allowedRegions), ("--blocked-regions", blockedRegions)] {
            guard let list else { continue }
            guard !list.isEmpty else { throw PackagerError(.invalidArgument, "\(name) must name at least one region") }
            for code in list where !(code.utf8.count == 2 && code.utf8.allSatisfy { (0x41 ... 0x5A).contains($0) }) {
                throw PackagerError(.invalidArgument, "\(name): '\(code)' is not an ISO 3166-1 alpha-2 region code")
            }
            guard Set(list).count == list.count else { throw PackagerError(.invalidArgument, "\(name) repeats a region") }
        }
        if let a = allowedRegions, let b = blockedRegions, !Set(a).isDisjoint(with: b) {
            throw PackagerError(.invalidArgument, "a region is both allowed and blocked")
        }
    }

    /// Parses a comma-separated region list ("us,CA" gives ["US", "CA"]).
    public static func regions(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
    }

    public var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("v", .number(JSONNumber(1)))]
        if rentalPurchaseWindow != nil || rentalPlaybackWindow != nil {
            var rental: [(String, JSONValue)] = []
            if let w = rentalPurchaseWindow { rental.append(("purchaseWindowSeconds", .number(JSONNumber(w)))) }
            if let w = rentalPlaybackWindow { rental.append(("playbackWindowSeconds", .number(JSONNumber(w)))) }
            members.append(("rental", .object(JSONObject(rental))))
        }
        if let n = maxConcurrentStreams { members.append(("maxConcurrentStreams", .number(JSONNumber(n)))) }
        if let list = allowedRegions { members.append(("allowedRegions", .array(list.map { .string($0) }))) }
        if let list = blockedRegions { members.append(("blockedRegions", .array(list.map { .string($0) }))) }
        if let hdcp { members.append(("hdcp", .string(hdcp.rawValue))) }
        if let level = minimumSecurityLevel { members.append(("minSecurityLevel", .string(level.rawValue))) }
        if let vm = allowVirtualMachines { members.append(("allowVirtualMachines", .bool(vm))) }
        return .object(JSONObject(members))
    }
}
