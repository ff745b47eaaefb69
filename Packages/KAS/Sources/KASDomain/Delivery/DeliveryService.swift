import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMTDF
import Synchronization

/// The delivery service (docs/delivery.md): playbacks (`/media/v1/playback`: the description with
/// a signed media URL, a media session, release, media-URL renewal), the FairPlay licence URL
/// (raw SPC in, raw CKC out) and the JW-shaped description (`/v2/media/{assetId}`).
///
/// The decisions are the media service's: a playback's viewer is checked against the title's
/// policy by `MediaRuleEvaluator` before any URL is handed out, its session is started by
/// `MediaService.startSession` (stream limits included), and the licence URL's key comes from
/// `MediaService.keyRequest`, the route `key-request` players call. It sees no HTTP type:
/// `DeliveryRouteAdapter` reads the requests and answers each `DeliveryFailure`.
package final class DeliveryService: Sendable {
    let publicURL: String
    let settings: KASConfiguration.DeliverySettings
    public let catalog: any CatalogStore
    let media: MediaService
    let origin: OriginURLSigner?
    let originURL: String?
    let tokenKey: DeliveryTokenKey?
    /// The backend clients' secrets (`delivery.backendClients`).
    let backendCredentials: BackendCredentials
    let licenses: LicenseURLSigner
    let playbacks: any PlaybackStore
    let clock: @Sendable () -> Date
    /// One licence at a time per playback component (its session start and key request).
    let licenceCalls = LicenseSerializer()
    /// Playback starts so far, for pruning now and then (`maintainPlaybacks`).
    private let starts = Atomic<Int>(0)

    /// Reads the origin and delivery secrets the configuration names (an unusable file is an
    /// error) and the licence URLs' key from the playback store.
    package init(configuration: KASConfiguration, catalog: any CatalogStore, playbacks: any PlaybackStore, media: MediaService,
                 clock: @escaping @Sendable () -> Date = { Date() })
        throws(KASApplicationError)
    {
        publicURL = configuration.publicURL
        settings = configuration.delivery
        self.catalog = catalog
        self.playbacks = playbacks
        self.media = media
        self.clock = clock
        originURL = settings.originURL
        do {
            if let url = settings.originURL, let file = settings.originSecretFile {
                origin = OriginURLSigner(originURL: url, secret: try OriginSecret.load(path: file))
            } else {
                origin = nil
            }
        } catch {
            throw KASApplicationError(error.reason)
        }
        do {
            tokenKey = try settings.deliverySecretFile.map { path throws(DeliverySecretError) in try DeliveryTokenKey.load(path: path) }
            backendCredentials = try BackendCredentials(settings.backendClients)
        } catch {
            throw KASApplicationError(error.reason)
        }
        do {
            licenses = LicenseURLSigner(key: try playbacks.licenseURLKey())
        } catch {
            throw KASApplicationError("cannot read the licence URL key from the playback store: \(error.reason)")
        }
    }

    // MARK: Shared steps

    /// Whether this service offers `system` at all: FairPlay only with a `fairplay` section (its
    /// certificate and SDK), so a KAS without one never lists a FairPlay source or starts a
    /// FairPlay playback whose licence URL could only answer 503.
    func offers(_ system: DeliveryDRMSystem) -> Bool { system != .fairplay || media.fairPlay != nil }

    /// The catalogued title `assetId` names (its policy uuid or its short media id); 404 when
    /// it names none.
    func entry(_ assetID: String?) throws(DeliveryFailure) -> CatalogEntry {
        guard let assetID else { throw .noSuchAsset }
        let entry: CatalogEntry?
        do {
            entry = try catalog.entry(id: assetID)
        } catch {
            throw .storeUnavailable
        }
        guard let entry else { throw .noSuchAsset }
        return entry
    }

    /// One call of a store; a store that cannot answer is `storeUnavailable`.
    @discardableResult
    func storeCall<T>(_ call: () throws(StoreError) -> T) throws(DeliveryFailure) -> T {
        do {
            return try call()
        } catch {
            throw .storeUnavailable
        }
    }

    /// The policy a catalog entry was read with (the package's, verified when it was added).
    func policy(of entry: CatalogEntry) throws(DeliveryFailure) -> AdmittedManifest {
        do {
            let policy = try TDFPolicy(parsing: entry.policyJSON)
            let rules = try policy.media.map { value throws(MediaRulesError) in try MediaRules(json: value) }
            return AdmittedManifest(digest: "", policy: MediaAssetPolicy(
                policyUUID: policy.uuid, dataAttributes: policy.body.dataAttributes.map(\.attribute), dissem: policy.body.dissem,
                rules: rules), iv: Data(), components: [])
        } catch {
            throw .catalogEntryUnreadable
        }
    }

    /// The title's policy for this viewer as far as it is known before a key request: the media
    /// authorizer's answer to whether this viewer may start a playback of it now
    /// (`MediaAuthorizer.playbackStartRefusal`), then, for a live title, its event's window and
    /// blackouts (`CatalogLiveEvent`).
    func refusal(for policy: AdmittedManifest, of entry: CatalogEntry, viewer: Identity, region: String?,
                 now: Date) throws(DeliveryFailure) -> MediaDenial? {
        let denial = try storeCall { () throws(StoreError) in
            try media.authorizer.playbackStartRefusal(viewer: viewer, asset: policy.policy, region: region, now: now)
        }
        return denial ?? entry.live?.refusal(region: region, now: now, dvrSeconds: media.configuration.livePeriods.dvrSeconds)
    }

    /// The media URL of a title and when it stops working: the title's duration plus the margin;
    /// for a live title, the DVR range plus the margin, or until its end when that is later (a
    /// viewer of an open-ended stream renews the URL, `renewMediaURL`).
    func mediaURL(_ entry: CatalogEntry, now: Date) -> (url: String, expires: Date) {
        var lifetime = entry.duration.rounded(.up)
        if let live = entry.live {
            lifetime = TimeInterval(media.configuration.livePeriods.dvrSeconds)
                + max(0, (live.endsAt?.timeIntervalSince(now) ?? 0).rounded(.up))
        }
        let expires = now.addingTimeInterval(lifetime + TimeInterval(settings.mediaURLMarginSeconds))
        return (signedEntryURL(entry, expires: expires), expires)
    }

    /// The title's file (fps-v2) or `master.m3u8` on the origin, signed until `expires`.
    func signedEntryURL(_ entry: CatalogEntry, expires: Date) -> String {
        if let origin { return origin.signedURL(for: entry.mediaPath, expires: expires) }
        return (originURL ?? "") + entry.mediaPath.entryPath
    }

    /// RFC 3339 UTC, whole seconds rounded down: `2026-12-01T20:00:00Z` (the form the Client reads).
    static func timestamp(_ date: Date) -> String {
        RFC3339Timestamp.string(seconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    func audit(_ event: String, viewer: Identity, asset: String?, component: String? = nil, decision: MediaAuditEvent.Decision,
               reason: String, now: Date) {
        media.audit?.record(MediaAuditEvent(time: now, event: event, viewerHash: viewer.viewerHash, asset: asset,
                                            component: component, protocol: nil, decision: decision, reason: reason,
                                            latencyMilliseconds: 0))
    }

    /// A new media session for `playbackID` (one per component for FairPlay, as players start
    /// them): the player's `MediaSessionStart`, given to the media service as a decoded message,
    /// so the session start is audited and limited as a player's is (but for the session-start
    /// budget: the playback start or the licence URL's key request was counted already). A
    /// refusal is the media service's (`DeliveryFailure.media`), answered as the media routes
    /// answer it.
    func startSession(assetID: String, protocol proto: MediaProtocol, component: String?, playbackID: String,
                      viewer: Identity) throws(DeliveryFailure) -> String {
        let start = MediaSessionStart(assetID: assetID, protocol: proto, playbackID: playbackID, component: component)
        do {
            return try media.startPlaybackSession(start, viewer: viewer).sessionID
        } catch {
            throw .media(error)
        }
    }

    /// Prunes playbacks that ended a day ago now and then (about one start in 256), as the media
    /// service prunes sessions; the store's bounds hold meanwhile (`RecordBounds`).
    func maintainPlaybacks(now: Date) {
        guard starts.add(1, ordering: .relaxed).newValue % 256 == 0 else { return }
        try? playbacks.prune(olderThan: now.addingTimeInterval(-PlaybackRecord.retention))
    }

    /// 16 random bytes, base64url: a media-store playback id (`MediaSessionID.isPlaybackID`).
    static func makePlaybackID() throws(DeliveryFailure) -> String {
        do {
            return Base64URL.encode(try SecureRandom.bytes(count: 16))
        } catch {
            throw .randomGeneratorUnavailable
        }
    }
}
