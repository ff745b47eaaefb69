// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// The media policy of one admitted asset: what its verified TDF policy declares. An fps-v2
/// manifest gives it (`AdmittedManifest.policy`); so does any other admitted form of the asset.
struct MediaAssetPolicy: Sendable, Equatable {
    /// The policy uuid, which is the asset id (fps-v2 §10.3).
    var policyUUID: String
    /// `body.dataAttributes[].attribute`, all of which the viewer must be entitled to.
    var dataAttributes: [String]
    /// `body.dissem`: when non-empty, only these subjects.
    var dissem: [String]
    /// The bound `arkavo:media`, nil when the policy has none.
    var rules: MediaRules?
}

/// One key release the authorize step is asked about.
struct MediaAuthorizationRequest: Sendable {
    var viewer: Identity
    /// The live session the request names, already found to be this viewer's and this asset's
    /// (`MediaService.liveSession`) and bound to `component`.
    var session: MediaSessionRecord
    var asset: MediaAssetPolicy
    /// The component (fps-v2) or rendition the key is for; audited, the rules are per asset.
    var component: String
    var device: DeviceCapabilities
    /// ISO 3166-1 alpha-2 from a trusted source (`TrustedRegionSource`), nil when unknown.
    var region: String?
    var now: Date
}

/// What the authorize step decided.
enum MediaAuthorization: Sendable, Equatable {
    /// The key may leave; record the release with `MediaAuthorizer.recordRelease` once it has.
    case granted(MediaGrant)
    case denied(MediaDenial)
}

/// A release the media rules allow, and the first-play record it writes once the key has left.
struct MediaGrant: Sendable, Equatable {
    /// `Identity.storeKey` of the viewer.
    let viewer: String
    /// What the first-play record is kept under: the asset, or for a rental the purchase
    /// (`MediaAuthorizer.firstPlayKey`).
    let firstPlayKey: String
    let time: Date
}

/// The authorize step of every media key release (docs/architecture.md, "A key request's path"):
/// reads what the rules need from the store (the first play, the playback's rank among the
/// viewer's live playbacks), applies every media rule (`MediaRuleEvaluator`: entitlement,
/// dissemination, rental purchase and playback windows, regions, device, concurrency) and
/// answers a grant or the `MediaDenial` of the first rule that refuses.
///
/// Two writes belong to the decision: the asset's stream limit as the verified policy declares
/// it (later session starts enforce it), and, on a concurrency denial, the end of the session
/// (the playback will never get a key, so it frees its slot; audited as `session_end`).
/// Store failures are thrown; nothing else is.
struct MediaAuthorizer: Sendable {
    let store: any MediaStore
    let audit: MediaAuditLog?
    /// The bounds of live key periods (`MediaServiceConfiguration.livePeriods`).
    var livePeriods = LivePeriodSettings()

    func authorize(_ request: MediaAuthorizationRequest) throws(StoreError) -> MediaAuthorization {
        let viewer = request.viewer, asset = request.asset, session = request.session, now = request.now
        let playKey = Self.firstPlayKey(asset: asset, viewer: viewer)
        let firstPlay = try store.firstPlay(viewer: viewer.storeKey, asset: playKey)
        let rank = try store.playbackRank(viewer: viewer.storeKey, asset: asset.policyUUID, playback: session.playback, now: now)
        let limit = asset.rules?.maxConcurrentStreams
        if try store.assetStreamLimit(asset: asset.policyUUID) != limit {
            try store.setAssetStreamLimit(asset: asset.policyUUID, limit: limit, now: now)
        }
        let input = MediaPolicyInput(
            policyUUID: asset.policyUUID, dataAttributes: asset.dataAttributes, dissem: asset.dissem, rules: asset.rules,
            viewer: viewer, region: request.region, device: request.device, firstPlay: firstPlay, playbackRank: rank, now: now,
            livePeriods: livePeriods)
        guard let denial = MediaRuleEvaluator.evaluate(input) else {
            return .granted(MediaGrant(viewer: viewer.storeKey, firstPlayKey: playKey, time: now))
        }
        if denial == .concurrentStreams,
           (try? store.endSession(idHash: session.idHash, viewer: viewer.storeKey, now: now)) == true {
            audit?.record(.sessionEnded(viewer: viewer, asset: asset.policyUUID, component: request.component,
                                        reason: "ended_over_stream_limit", time: now))
        }
        return .denied(denial)
    }

    /// May this viewer start a playback of this asset now? The rules that can be decided before a
    /// device or a playback exists: entitlement, dissemination, the rental windows and regions.
    /// A live key period is a segment's, not the stream's, so it waits for the key request too.
    /// The device rules (`minSecurityLevel`, `hdcp`, `allowVirtualMachines`) wait for the key
    /// request, which knows the device, and the stream limit for the session start and the key
    /// request, which know the playback. Nil allows; otherwise the denial a key request would give
    /// for the same reason. Reads the first play; writes nothing.
    func playbackStartRefusal(viewer: Identity, asset: MediaAssetPolicy, region: String?, now: Date) throws(StoreError) -> MediaDenial? {
        let firstPlay = try store.firstPlay(viewer: viewer.storeKey, asset: Self.firstPlayKey(asset: asset, viewer: viewer))
        var rules = asset.rules
        rules?.minSecurityLevel = nil
        rules?.hdcp = nil
        rules?.allowVirtualMachines = nil
        rules?.maxConcurrentStreams = nil
        rules?.livePeriod = nil
        rules?.livePeriodStart = nil
        return MediaRuleEvaluator.evaluate(MediaPolicyInput(
            policyUUID: asset.policyUUID, dataAttributes: asset.dataAttributes, dissem: asset.dissem, rules: rules,
            viewer: viewer, region: region, device: .software(reportedVirtualMachine: nil), firstPlay: firstPlay,
            playbackRank: nil, now: now))
    }

    /// Writes the grant's first-play record (kept if one exists): the playback window of a
    /// rental runs from the first key that actually left.
    func recordRelease(_ grant: MediaGrant) throws(StoreError) {
        try store.recordFirstPlay(viewer: grant.viewer, asset: grant.firstPlayKey, at: grant.time)
    }

    /// A rental's first play is per purchase, so a new rental of the same asset starts a new
    /// playback window; other assets have one record per viewer.
    static func firstPlayKey(asset: MediaAssetPolicy, viewer: Identity) -> String {
        if asset.rules?.isRental == true, let purchase = viewer.rentalPurchaseTime(policyUUID: asset.policyUUID) {
            return "\(asset.policyUUID)@\(purchase)"
        }
        return asset.policyUUID
    }

    /// The device an open-path (software) client is taken to be: what it reports now, else what
    /// it reported when its session started; either can only lower its trust.
    static func openPathDevice(reported: DeviceReport?, session: MediaSessionRecord) -> DeviceCapabilities {
        var virtualMachine = reported?.virtualMachine
        if virtualMachine == nil, let stored = session.device, let value = try? JSONParser.parse(Data(stored.utf8)) {
            virtualMachine = DeviceReport(json: value)?.virtualMachine
        }
        return .software(reportedVirtualMachine: virtualMachine)
    }
}
