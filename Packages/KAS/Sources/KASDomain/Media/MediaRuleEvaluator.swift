import MediaDRMFPSv2
import Foundation
import MediaDRMMedia

/// What a device can show: its security level, its output protection, and whether it runs in a
/// virtual machine (nil: unknown).
public struct DeviceCapabilities: Sendable, Equatable {
    public var securityLevel: SecurityLevel
    public var hdcp: HDCPLevel
    public var virtualMachine: Bool?

    public init(securityLevel: SecurityLevel, hdcp: HDCPLevel, virtualMachine: Bool?) {
        self.securityLevel = securityLevel
        self.hdcp = hdcp
        self.virtualMachine = virtualMachine
    }

    /// An open-path (software) client. Its own report cannot raise its trust: it is `software`
    /// with no provable output protection whatever it claims, and it is unknown whether it runs
    /// in a virtual machine unless it says that it does.
    public static func software(reportedVirtualMachine: Bool?) -> DeviceCapabilities {
        DeviceCapabilities(securityLevel: .software, hdcp: .unprotected, virtualMachine: reportedVirtualMachine == true ? true : nil)
    }
}

/// Everything one policy decision reads.
struct MediaPolicyInput: Sendable {
    var policyUUID: String
    /// `body.dataAttributes[].attribute`, all of which the viewer must be entitled to.
    var dataAttributes: [String]
    /// `body.dissem`: when non-empty, only these subjects.
    var dissem: [String]
    var rules: MediaRules?
    var viewer: Identity
    /// ISO 3166-1 alpha-2, from a trusted source only; nil when unknown.
    var region: String?
    var device: DeviceCapabilities
    /// The first key delivered to this viewer for this asset (for a rental: this purchase).
    var firstPlay: Date?
    /// The position of the session's playback among the viewer's live playbacks of the asset.
    var playbackRank: Int?
    var now: Date
    /// The bounds of a live key period (`livePeriod` in the rules) around `now`.
    var livePeriods: LivePeriodSettings

    init(policyUUID: String, dataAttributes: [String], dissem: [String], rules: MediaRules?, viewer: Identity,
                region: String?, device: DeviceCapabilities, firstPlay: Date?, playbackRank: Int?, now: Date,
                livePeriods: LivePeriodSettings = LivePeriodSettings()) {
        self.policyUUID = policyUUID
        self.dataAttributes = dataAttributes
        self.dissem = dissem
        self.rules = rules
        self.viewer = viewer
        self.region = region
        self.device = device
        self.firstPlay = firstPlay
        self.playbackRank = playbackRank
        self.now = now
        self.livePeriods = livePeriods
    }
}

/// The media policy decision: nil allows; otherwise the first rule that refuses.
///
/// - Entitlement: every `body.dataAttributes` value FQN appears in the token's `entitlements`
///   (compared case-insensitively, as attribute FQNs are).
/// - Dissemination: a non-empty `body.dissem` lists the viewer's `sub` (case-insensitively).
/// - Rental (when `arkavo:media.rental` is present): the token's `rentals[<policy uuid>]` gives the
///   purchase time, required and not in the future (60 s skew); the first key must come within
///   `purchaseWindowSeconds` of it; keys come for `playbackWindowSeconds` after the first one.
/// - Regions: with either list, an unknown region is refused (fail closed); a region outside
///   `allowedRegions` or inside `blockedRegions` is refused.
/// - Live key period (`livePeriod`): not further ahead than the lead, not ended longer ago than
///   the DVR range (`LivePeriodRule`).
/// - Device: the level at least `minSecurityLevel` (ordered); HDCP at least `hdcp`;
///   `allowVirtualMachines: false` refuses a virtual machine and a device that cannot show it is
///   not one.
/// - Concurrency: the session's playback is among the `maxConcurrentStreams` oldest live ones.
enum MediaRuleEvaluator {
    static let clockSkew: TimeInterval = 60

    static func evaluate(_ input: MediaPolicyInput) -> MediaDenial? {
        let entitled = Set(input.viewer.entitlements.map { $0.lowercased() })
        for attribute in input.dataAttributes where !entitled.contains(attribute.lowercased()) {
            return .notEntitled
        }
        if !input.dissem.isEmpty {
            let subject = input.viewer.subject.lowercased()
            guard input.dissem.contains(where: { $0.lowercased() == subject }) else { return .dissemExcluded }
        }
        guard let rules = input.rules else { return nil }

        if rules.isRental {
            guard let purchase = input.viewer.rentalPurchaseTime(policyUUID: input.policyUUID) else {
                return .rentalNotPurchased
            }
            let purchased = Date(timeIntervalSince1970: TimeInterval(purchase))
            guard purchased <= input.now.addingTimeInterval(clockSkew) else { return .rentalNotPurchased }
            if let window = rules.rentalPurchaseWindowSeconds, input.firstPlay == nil,
               input.now > purchased.addingTimeInterval(TimeInterval(window)) {
                return .rentalPurchaseWindowClosed
            }
            if let window = rules.rentalPlaybackWindowSeconds, let first = input.firstPlay,
               input.now > first.addingTimeInterval(TimeInterval(window)) {
                return .rentalPlaybackWindowClosed
            }
        }

        if rules.allowedRegions != nil || rules.blockedRegions != nil {
            guard let region = input.region else { return .regionUnknown }
            if let allowed = rules.allowedRegions, !allowed.contains(region) { return .regionNotAllowed }
            if let blocked = rules.blockedRegions, blocked.contains(region) { return .regionBlocked }
        }

        if let denial = LivePeriodRule.refusal(rules, settings: input.livePeriods, now: input.now) { return denial }

        if let minimum = rules.minSecurityLevel, input.device.securityLevel < minimum {
            return .securityLevelInsufficient
        }
        if let hdcp = rules.hdcp, input.device.hdcp < hdcp { return .hdcpInsufficient }
        if rules.allowVirtualMachines == false {
            switch input.device.virtualMachine {
            case .some(true): return .virtualMachine
            case .none: return .virtualMachineUnverified
            case .some(false): break
            }
        }

        if let limit = rules.maxConcurrentStreams {
            guard let rank = input.playbackRank, rank < limit else { return .concurrentStreams }
        }
        return nil
    }
}
