import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMFPSv2
import MediaDRMJSON
import MediaDRMMedia
import Testing

@Suite struct MediaRuleEvaluatorTests {
    static let uuid = "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let mainDevice = DeviceCapabilities(securityLevel: .main, hdcp: .type1, virtualMachine: false)

    private func input(rules: MediaRules? = nil, entitlements: [String] = [MediaFixture.attribute],
                       rentals: [String: Int64] = [:], dissem: [String] = [], subject: String = "alice@example.com",
                       region: String? = "US", device: DeviceCapabilities = mainDevice, firstPlay: Date? = nil,
                       rank: Int? = 0) -> MediaPolicyInput {
        MediaPolicyInput(policyUUID: Self.uuid, dataAttributes: [MediaFixture.attribute], dissem: dissem, rules: rules,
                         viewer: .viewer(subject, entitlements: entitlements, rentals: rentals),
                         region: region, device: device, firstPlay: firstPlay, playbackRank: rank, now: Self.now)
    }

    @Test func entitlementIsRequiredForEveryAttribute() {
        #expect(MediaRuleEvaluator.evaluate(input()) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(entitlements: [MediaFixture.attribute.uppercased()])) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(entitlements: [])) == .notEntitled)
        #expect(MediaRuleEvaluator.evaluate(input(entitlements: ["https://example.com/attr/tier/value/silver"])) == .notEntitled)
    }

    @Test func dissemListsTheViewer() {
        #expect(MediaRuleEvaluator.evaluate(input(dissem: ["Alice@Example.com"])) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(dissem: ["bob@example.com"])) == .dissemExcluded)
    }

    @Test func rentalPurchaseWindow() {
        let rules = MediaRules(rentalPurchaseWindowSeconds: 3600)
        let purchase = Int64(Self.now.timeIntervalSince1970)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules)) == .rentalNotPurchased)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: [Self.uuid.uppercased(): purchase - 3599])) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: [Self.uuid: purchase - 3601])) == .rentalPurchaseWindowClosed)
        // Once playback started within the window, the purchase window no longer matters.
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: [Self.uuid: purchase - 7200],
                                           firstPlay: Self.now.addingTimeInterval(-4000))) == nil)
        // A purchase time in the future (beyond skew) is no purchase.
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: [Self.uuid: purchase + 3600])) == .rentalNotPurchased)
    }

    @Test func rentalPlaybackWindow() {
        let rules = MediaRules(rentalPlaybackWindowSeconds: 172_800)
        let rentals = [Self.uuid: Int64(Self.now.timeIntervalSince1970) - 10]
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: rentals, firstPlay: nil)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: rentals, firstPlay: Self.now.addingTimeInterval(-172_800))) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rentals: rentals, firstPlay: Self.now.addingTimeInterval(-172_801)))
                == .rentalPlaybackWindowClosed)
    }

    /// `rules` decided with a configured period of 600 s, a lead of 6 s and a DVR range of 60 s.
    private func decideLive(_ rules: MediaRules) -> MediaDenial? {
        var settings = LivePeriodSettings()
        settings.keyPeriodSeconds = 600
        settings.leadSeconds = 6
        settings.dvrSeconds = 60
        var policy = input(rules: rules)
        policy.livePeriods = settings
        return MediaRuleEvaluator.evaluate(policy)
    }

    /// A live key period's bounds are inclusive: a period starting exactly the lead ahead, or
    /// ended exactly the DVR range ago, still gets its key; one second more does not. Extreme
    /// `livePeriodStart` values (hostile policies) are refused, never trapped on.
    @Test func liveKeyPeriodBounds() {
        let now = Int64(Self.now.timeIntervalSince1970)
        func decide(_ start: Int64) -> MediaDenial? { decideLive(MediaRules(livePeriod: 3, livePeriodStart: start)) }
        #expect(decide(now) == nil)
        #expect(decide(now + 6) == nil)
        #expect(decide(now + 7) == .livePeriodNotStarted)
        #expect(decide(now - 660) == nil)
        #expect(decide(now - 661) == .livePeriodExpired)
        #expect(decide(Int64.max) == .livePeriodNotStarted)
        #expect(decide(0) == .livePeriodExpired)
        // Without livePeriod the rule does not apply.
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(maxConcurrentStreams: 2))) == nil)
    }

    /// The policy's `livePeriodSeconds` decides when a period ends; the configured length
    /// (`media.liveKeyPeriodSeconds`) only stands in for a segment packaged without it.
    @Test func livePeriodLengthFromThePolicyWinsOverTheConfiguration() {
        let now = Int64(Self.now.timeIntervalSince1970)
        func decide(start: Int64, length: Int64?) -> MediaDenial? {
            decideLive(MediaRules(livePeriod: 3, livePeriodStart: start, livePeriodSeconds: length))
        }
        // A 6 s period that began 67 s ago ended 61 s ago: past the 60 s DVR range by the
        // policy's length, well inside it by the configured 600 s.
        #expect(decide(start: now - 67, length: 6) == .livePeriodExpired)
        #expect(decide(start: now - 66, length: 6) == nil)
        #expect(decide(start: now - 67, length: nil) == nil)
        // A 3600 s period that began 1000 s ago is still running; by the configured 600 s it
        // would have ended 400 s ago, past the DVR range.
        #expect(decide(start: now - 1000, length: 3600) == nil)
        #expect(decide(start: now - 1000, length: nil) == .livePeriodExpired)
        #expect(decide(start: now - 3660, length: 3600) == nil)
        #expect(decide(start: now - 3661, length: 3600) == .livePeriodExpired)
        // Not started is the start against the lead, whatever the length.
        #expect(decide(start: now + 7, length: 6) == .livePeriodNotStarted)
        #expect(decide(start: now + 6, length: 6) == nil)
    }

    @Test func regions() {
        let allowed = MediaRules(allowedRegions: ["US", "CA"])
        #expect(MediaRuleEvaluator.evaluate(input(rules: allowed, region: "CA")) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: allowed, region: "FR")) == .regionNotAllowed)
        #expect(MediaRuleEvaluator.evaluate(input(rules: allowed, region: nil)) == .regionUnknown)
        let blocked = MediaRules(blockedRegions: ["KP"])
        #expect(MediaRuleEvaluator.evaluate(input(rules: blocked, region: "US")) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: blocked, region: "KP")) == .regionBlocked)
        #expect(MediaRuleEvaluator.evaluate(input(rules: blocked, region: nil)) == .regionUnknown)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(), region: nil)) == nil)
    }

    @Test func securityLevelsAreOrderedNotCompared() {
        #expect(SecurityLevel.software < .baseline && SecurityLevel.baseline < .main)
        // "main" < "software" as strings: a string comparison would get this wrong.
        #expect("main" < "software")
        let rules = MediaRules(minSecurityLevel: .baseline)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: Self.mainDevice)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .init(securityLevel: .baseline, hdcp: .type1, virtualMachine: false))) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .software(reportedVirtualMachine: false)))
                == .securityLevelInsufficient)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(minSecurityLevel: .software),
                                           device: .software(reportedVirtualMachine: false))) == nil)
    }

    @Test func hdcp() {
        let rules = MediaRules(hdcp: .type1)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .init(securityLevel: .main, hdcp: .type0, virtualMachine: false)))
                == .hdcpInsufficient)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(hdcp: .type0),
                                           device: .init(securityLevel: .main, hdcp: .type0, virtualMachine: false))) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(hdcp: .unprotected), device: .software(reportedVirtualMachine: nil))) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(hdcp: .type0), device: .software(reportedVirtualMachine: nil)))
                == .hdcpInsufficient)
    }

    @Test func virtualMachines() {
        let rules = MediaRules(allowVirtualMachines: false)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .init(securityLevel: .main, hdcp: .type1, virtualMachine: true)))
                == .virtualMachine)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .software(reportedVirtualMachine: true))) == .virtualMachine)
        // A software client's "not a VM" is only a claim.
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, device: .software(reportedVirtualMachine: false)))
                == .virtualMachineUnverified)
        #expect(MediaRuleEvaluator.evaluate(input(rules: MediaRules(allowVirtualMachines: true),
                                           device: .software(reportedVirtualMachine: true))) == nil)
    }

    @Test func concurrentStreams() {
        let rules = MediaRules(maxConcurrentStreams: 2)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rank: 0)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rank: 1)) == nil)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rank: 2)) == .concurrentStreams)
        #expect(MediaRuleEvaluator.evaluate(input(rules: rules, rank: nil)) == .concurrentStreams)
    }
}

/// The authorizer's question before a playback exists (`MediaAuthorizer.playbackStartRefusal`),
/// against a real SQLite store: the rules a viewer can fail before a device is known refuse as
/// the key request would; the device and stream-limit rules wait for the key request.
@Suite struct PlaybackStartRefusalTests {
    static let uuid = MediaRuleEvaluatorTests.uuid
    static let now = MediaRuleEvaluatorTests.now

    /// An authorizer over a fresh SQLite store in `directory`, which the caller removes.
    private static func authorizer(in directory: URL) throws -> (MediaAuthorizer, SQLiteMediaStore) {
        let store = try SQLiteMediaStore(path: directory.appendingPathComponent("media.sqlite").path)
        return (MediaAuthorizer(store: store, audit: nil), store)
    }

    private func asset(_ rules: MediaRules?) -> MediaAssetPolicy {
        MediaAssetPolicy(policyUUID: Self.uuid, dataAttributes: [MediaFixture.attribute], dissem: [], rules: rules)
    }

    @Test func deviceAndStreamLimitRulesWaitForTheKeyRequest() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (authorizer, _) = try Self.authorizer(in: directory)
        let viewer = Identity.viewer("alice@example.com", entitlements: [MediaFixture.attribute])
        let strict = MediaRules(maxConcurrentStreams: 1, hdcp: .type1, minSecurityLevel: .main, allowVirtualMachines: false)
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: asset(strict), region: nil, now: Self.now) == nil)
        let stranger = Identity.viewer("eve@example.com")
        #expect(try authorizer.playbackStartRefusal(viewer: stranger, asset: asset(nil), region: nil, now: Self.now) == .notEntitled)
        let regional = MediaRules(allowedRegions: ["US"])
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: asset(regional), region: nil, now: Self.now) == .regionUnknown)
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: asset(regional), region: "FR", now: Self.now)
                == .regionNotAllowed)
    }

    @Test func aRentalsPlaybackWindowRunsFromTheStoredFirstPlay() throws {
        let directory = try MediaFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (authorizer, store) = try Self.authorizer(in: directory)
        let purchase = Int64(Self.now.timeIntervalSince1970) - 100_000
        let viewer = Identity.viewer("alice@example.com", entitlements: [MediaFixture.attribute], rentals: [Self.uuid: purchase])
        let rental = asset(MediaRules(rentalPurchaseWindowSeconds: 3_600, rentalPlaybackWindowSeconds: 172_800))
        // Never played: the purchase window has closed.
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: rental, region: nil, now: Self.now)
                == .rentalPurchaseWindowClosed)
        // Played within the purchase window: the playback window, still open, decides.
        _ = try store.recordFirstPlay(viewer: viewer.storeKey, asset: MediaAuthorizer.firstPlayKey(asset: rental, viewer: viewer),
                                      at: Date(timeIntervalSince1970: TimeInterval(purchase + 60)))
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: rental, region: nil, now: Self.now) == nil)
        #expect(try authorizer.playbackStartRefusal(viewer: viewer, asset: rental, region: nil,
                                                    now: Self.now.addingTimeInterval(172_800)) == .rentalPlaybackWindowClosed)
    }
}

@Suite struct MediaRulesTests {
    private func parse(_ text: String) throws(ManifestRefusal) -> MediaRules {
        guard let value = try? JSONParser.parse(Data(text.utf8)) else { throw .malformedMediaRules }
        do { return try MediaRules(json: value) } catch { throw .malformedMediaRules }
    }

    @Test func readsThePackagerShape() throws {
        let rules = try parse(#"{"v":1,"rental":{"purchaseWindowSeconds":2592000,"playbackWindowSeconds":172800},"maxConcurrentStreams":2,"allowedRegions":["US","CA"],"blockedRegions":["KP"],"hdcp":"type1","minSecurityLevel":"main","allowVirtualMachines":false}"#)
        #expect(rules == MediaRules(rentalPurchaseWindowSeconds: 2_592_000, rentalPlaybackWindowSeconds: 172_800,
                                    maxConcurrentStreams: 2, allowedRegions: ["US", "CA"], blockedRegions: ["KP"],
                                    hdcp: .type1, minSecurityLevel: .main, allowVirtualMachines: false))
        #expect(try parse(#"{"v":1}"#) == MediaRules())
    }

    @Test(arguments: [
        #"{}"#, #"{"v":2}"#, #"{"v":1.0}"#, #"{"v":1,"unknown":true}"#, #"{"v":1,"rental":{}}"#,
        #"{"v":1,"rental":{"purchaseWindowSeconds":0}}"#, #"{"v":1,"rental":{"other":1}}"#,
        #"{"v":1,"maxConcurrentStreams":-1}"#, #"{"v":1,"maxConcurrentStreams":1.5}"#, #"{"v":1,"maxConcurrentStreams":"2"}"#,
        #"{"v":1,"allowedRegions":[]}"#, #"{"v":1,"allowedRegions":["us"]}"#, #"{"v":1,"allowedRegions":["USA"]}"#,
        #"{"v":1,"blockedRegions":["KP","KP"]}"#, #"{"v":1,"hdcp":"type2"}"#, #"{"v":1,"minSecurityLevel":"MAIN"}"#,
        #"{"v":1,"allowVirtualMachines":"no"}"#, #"[]"#,
    ])
    func refusesAnythingOutsideTheSchema(_ text: String) {
        #expect(throws: ManifestRefusal.malformedMediaRules) { _ = try parse(text) }
    }
}
