import Foundation
import MediaDRMJSON

/// The `arkavo:media` policy member: the playback rules the KAS enforces. It sits inside the
/// policy, so every policy binding covers it. The packager writes it (`jsonValue`, only the rules
/// that were given), the KAS reads it (`init(json:)`) only from a policy whose bindings verified;
/// both apply `validate()`, so a package the packager writes is one the KAS reads. Wire form
/// (docs/formats.md):
///
/// ```json
/// "arkavo:media": {"v": 1,
///   "rental": {"purchaseWindowSeconds": 2592000, "playbackWindowSeconds": 172800},
///   "maxConcurrentStreams": 2, "allowedRegions": ["US", "CA"], "blockedRegions": ["KP"],
///   "hdcp": "type1", "minSecurityLevel": "main", "allowVirtualMachines": false,
///   "offline": true, "offlineLicenseDuration": 604800, "offlinePlaybackWindow": 172800,
///   "maxOfflineDevices": 2, "livePeriod": 3, "livePeriodStart": 1767225600, "livePeriodSeconds": 600}
/// ```
///
/// The schema is closed: an unknown member, a `v` other than 1 or a value of the wrong type is
/// refused. A rule a server does not understand must never be skipped.
public struct MediaRules: Sendable, Equatable {
    /// The policy member's name.
    public static let policyKey = "arkavo:media"
    /// The schema version written and the only one read.
    public static let version = 1
    /// The largest `maxConcurrentStreams`.
    public static let maxConcurrentStreamsLimit = 1_000
    /// The largest `maxOfflineDevices`.
    public static let maxOfflineDevicesLimit = 1_000
    /// An offline licence's life when the policy allows offline viewing without
    /// `offlineLicenseDuration`: 30 days (docs/offline.md).
    public static let defaultOfflineLicenseDuration: Int64 = 2_592_000
    /// The devices one viewer may hold offline licences of an asset on when the policy allows
    /// offline viewing without `maxOfflineDevices` (docs/offline.md).
    public static let defaultMaxOfflineDevices = 1
    /// The longest live key period, in seconds (one year): `packager live --key-period` and the
    /// KAS's `media.liveKeyPeriodSeconds` are bounded by it, as `livePeriodSeconds` is.
    public static let maxLivePeriodSeconds: Int64 = 31_536_000

    /// The members, each named once; `MediaRulesError.member` is one of these.
    public enum Member: String, Sendable, CaseIterable {
        case version = "v"
        case rental
        case rentalPurchaseWindow = "rental.purchaseWindowSeconds"
        case rentalPlaybackWindow = "rental.playbackWindowSeconds"
        case maxConcurrentStreams
        case allowedRegions
        case blockedRegions
        case hdcp
        case minSecurityLevel
        case allowVirtualMachines
        case offline
        case offlineLicenseDuration
        case offlinePlaybackWindow
        case maxOfflineDevices
        case livePeriod
        case livePeriodStart
        case livePeriodSeconds

        /// The JSON key inside its object (`purchaseWindowSeconds` inside `rental`).
        var key: String { rawValue.split(separator: ".").last.map(String.init) ?? rawValue }
    }

    /// Seconds after the purchase (the token's `rentals[<policy uuid>]`) within which the first
    /// key must be delivered.
    public var rentalPurchaseWindowSeconds: Int64?
    /// Seconds after the first key delivered to this viewer for this asset during which keys are
    /// delivered.
    public var rentalPlaybackWindowSeconds: Int64?
    /// Live playbacks (`playbackId`) of this asset one viewer may hold.
    public var maxConcurrentStreams: Int?
    /// ISO 3166-1 alpha-2 codes, upper case.
    public var allowedRegions: [String]?
    public var blockedRegions: [String]?
    public var hdcp: HDCPLevel?
    public var minSecurityLevel: SecurityLevel?
    /// false: keys are refused to virtual machines, and to clients that cannot show they are not.
    public var allowVirtualMachines: Bool?
    /// true: the KAS issues offline licences (docs/offline.md); absent or false: it refuses them.
    public var offline: Bool?
    /// Seconds an offline licence is valid from its issue or renewal (its `exp`); absent:
    /// `defaultOfflineLicenseDuration`. Never past a rental's end.
    public var offlineLicenseDurationSeconds: Int64?
    /// Seconds of offline viewing from the first offline play; absent: until the licence expires.
    public var offlinePlaybackWindowSeconds: Int64?
    /// Devices one viewer may hold live offline licences of this asset on; absent:
    /// `defaultMaxOfflineDevices`.
    public var maxOfflineDevices: Int?
    /// The key period of a live segment (`packager live --key-period`, docs/live.md): periods
    /// are numbered from 0 at the stream's start, so a KAS can tell one period's keys from
    /// another's. Written with `livePeriodStart`, never alone.
    public var livePeriod: Int64?
    /// When that period began: Unix seconds on the stream's program-date-time clock.
    public var livePeriodStart: Int64?
    /// How long that period lasts (`--key-period`), so a KAS reads it from the segment rather
    /// than from its configuration. Absent in segments packaged before it was written; given only
    /// with `livePeriod`.
    public var livePeriodSeconds: Int64?

    public init(rentalPurchaseWindowSeconds: Int64? = nil, rentalPlaybackWindowSeconds: Int64? = nil,
                maxConcurrentStreams: Int? = nil, allowedRegions: [String]? = nil, blockedRegions: [String]? = nil,
                hdcp: HDCPLevel? = nil, minSecurityLevel: SecurityLevel? = nil, allowVirtualMachines: Bool? = nil,
                offline: Bool? = nil, offlineLicenseDurationSeconds: Int64? = nil,
                offlinePlaybackWindowSeconds: Int64? = nil, maxOfflineDevices: Int? = nil,
                livePeriod: Int64? = nil, livePeriodStart: Int64? = nil, livePeriodSeconds: Int64? = nil) {
        self.rentalPurchaseWindowSeconds = rentalPurchaseWindowSeconds
        self.rentalPlaybackWindowSeconds = rentalPlaybackWindowSeconds
        self.maxConcurrentStreams = maxConcurrentStreams
        self.allowedRegions = allowedRegions
        self.blockedRegions = blockedRegions
        self.hdcp = hdcp
        self.minSecurityLevel = minSecurityLevel
        self.allowVirtualMachines = allowVirtualMachines
        self.offline = offline
        self.offlineLicenseDurationSeconds = offlineLicenseDurationSeconds
        self.offlinePlaybackWindowSeconds = offlinePlaybackWindowSeconds
        self.maxOfflineDevices = maxOfflineDevices
        self.livePeriod = livePeriod
        self.livePeriodStart = livePeriodStart
        self.livePeriodSeconds = livePeriodSeconds
    }

    public var isEmpty: Bool { self == MediaRules() }

    public var isRental: Bool { rentalPurchaseWindowSeconds != nil || rentalPlaybackWindowSeconds != nil }

    /// Whether the KAS may issue offline licences: only when the policy says `offline: true`.
    public var allowsOffline: Bool { offline == true }

    /// An offline licence's life in seconds, the default applied.
    public var effectiveOfflineLicenseDuration: Int64 { offlineLicenseDurationSeconds ?? Self.defaultOfflineLicenseDuration }

    /// The offline device limit, the default applied.
    public var effectiveMaxOfflineDevices: Int { maxOfflineDevices ?? Self.defaultMaxOfflineDevices }

    /// Whether any offline detail (duration, window, devices) is given.
    var hasOfflineDetails: Bool {
        offlineLicenseDurationSeconds != nil || offlinePlaybackWindowSeconds != nil || maxOfflineDevices != nil
    }

    /// The values' rules: positive windows, 1 to `maxConcurrentStreamsLimit` streams, region lists
    /// of at least one distinct ISO 3166-1 alpha-2 code, no region both allowed and blocked,
    /// offline details only with `offline: true` (a detail of a refused feature is a mistake,
    /// never silently dropped), 1 to `maxOfflineDevicesLimit` offline devices, a live period and
    /// its start both given or both absent, neither negative, and the period's length only with
    /// them, 1 to `maxLivePeriodSeconds`.
    public func validate() throws(MediaRulesError) {
        for (member, window) in [(Member.rentalPurchaseWindow, rentalPurchaseWindowSeconds),
                                 (.rentalPlaybackWindow, rentalPlaybackWindowSeconds),
                                 (.offlineLicenseDuration, offlineLicenseDurationSeconds),
                                 (.offlinePlaybackWindow, offlinePlaybackWindowSeconds)] {
            if let window, window <= 0 { throw MediaRulesError(member, "must be a positive number of seconds") }
        }
        if let n = maxConcurrentStreams, !(1...Self.maxConcurrentStreamsLimit).contains(n) {
            throw MediaRulesError(.maxConcurrentStreams, "must be from 1 to \(Self.maxConcurrentStreamsLimit)")
        }
        for (member, list) in [(Member.allowedRegions, allowedRegions), (.blockedRegions, blockedRegions)] {
            guard let list else { continue }
            guard !list.isEmpty else { throw MediaRulesError(member, "must name at least one region") }
            for code in list where !Self.isRegionCode(code) {
                throw MediaRulesError(member, "'\(code)' is not an ISO 3166-1 alpha-2 region code (two upper-case letters)")
            }
            guard Set(list).count == list.count else { throw MediaRulesError(member, "repeats a region") }
        }
        if let allowed = allowedRegions, let blocked = blockedRegions, !Set(allowed).isDisjoint(with: blocked) {
            throw MediaRulesError(.blockedRegions, "names a region that is also allowed")
        }
        if let n = maxOfflineDevices, !(1...Self.maxOfflineDevicesLimit).contains(n) {
            throw MediaRulesError(.maxOfflineDevices, "must be from 1 to \(Self.maxOfflineDevicesLimit)")
        }
        if hasOfflineDetails, !allowsOffline {
            throw MediaRulesError(.offline, "must be true when offlineLicenseDuration, offlinePlaybackWindow or maxOfflineDevices is given")
        }
        switch (livePeriod, livePeriodStart) {
        case (nil, nil): break
        case (let period?, let start?):
            if period < 0 { throw MediaRulesError(.livePeriod, "must not be negative") }
            if start < 0 { throw MediaRulesError(.livePeriodStart, "must not be negative") }
        case (nil, _): throw MediaRulesError(.livePeriod, "must be given with livePeriodStart")
        case (_, nil): throw MediaRulesError(.livePeriodStart, "must be given with livePeriod")
        }
        if let seconds = livePeriodSeconds {
            guard livePeriod != nil else { throw MediaRulesError(.livePeriodSeconds, "must be given with livePeriod") }
            guard (1 ... Self.maxLivePeriodSeconds).contains(seconds) else {
                throw MediaRulesError(.livePeriodSeconds, "must be from 1 to \(Self.maxLivePeriodSeconds)")
            }
        }
    }

    /// Two ASCII upper-case letters (ISO 3166-1 alpha-2).
    public static func isRegionCode(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { (0x41...0x5A).contains($0) }
    }

    /// A comma-separated region list as a person types it: "us, CA" gives ["US", "CA"].
    public static func regions(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
    }
}
