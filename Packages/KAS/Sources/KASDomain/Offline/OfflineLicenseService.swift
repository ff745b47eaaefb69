// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON
import MediaDRMMedia
import MediaDRMOffline

/// The offline licence service (docs/offline.md): issue after every fps-v2 §10.7 check and the
/// media policy, renew, release, and the published licence-signing keys. Offline viewing holds no
/// session and no stream slot; the viewer's devices count against `maxOfflineDevices` in the same
/// transaction that stores the licence. Every issue, renewal and release is audited, without the
/// licence, its keys, its id or the token. It sees no HTTP type: `OfflineRouteAdapter` reads the
/// requests and answers each `OfflineFailure`.
package final class OfflineLicenseService: Sendable {
    let media: MediaService
    let keyRing: KeyRingHolder
    let store: any OfflineLicenseStore

    package init(media: MediaService, keyRing: KeyRingHolder, store: any OfflineLicenseStore) {
        self.media = media
        self.keyRing = keyRing
        self.store = store
    }

    /// Opens (creating when absent) the offline store at `path`.
    public convenience init(media: MediaService, keyRing: KeyRingHolder, storePath: String) throws(StoreError) {
        self.init(media: media, keyRing: keyRing, store: try SQLiteOfflineStore(path: storePath))
    }

    public func close() { store.close() }

    // MARK: Operations

    /// `GET /media/v1/offline-signing-keys`: the active licence-signing key and every retired one
    /// that signed a licence still live, as a JWKS.
    package func signingKeys() throws(OfflineFailure) -> JWKSet {
        let live: Set<String>
        do {
            live = try store.liveSigningKids(now: media.clock())
        } catch {
            throw .storeUnavailable
        }
        let published = keyRing.current.licenseSigners.filter { $0.isActive || live.contains($0.kid) }
        return JWKSet(keys: published.map(\.publicJWK))
    }

    /// `POST /media/v1/offline-license`: a licence after every §10.7 check and the media policy.
    /// `request` is the decoded body, or why it could not be read (audited as such).
    package func issue(_ request: Result<OfflineLicenseRequest, OfflineFailure>, viewer: Identity,
                      region: String?) throws(OfflineFailure) -> OfflineLicenseAnswer {
        try audited("offline_license_issue", viewer: viewer, success: "issued") { event throws(OfflineFailure) in
            try issueLicense(request, viewer: viewer, region: region, event: &event)
        }
    }

    /// `POST /media/v1/offline-license/{licenseId}/renew`: a new licence of the same keys with a
    /// later `exp`, never past the rental, after the media policy again.
    package func renew(id: String?, report: Result<OfflinePlayReport, OfflineFailure>, viewer: Identity,
                      region: String?) throws(OfflineFailure) -> OfflineLicenseAnswer {
        try audited("offline_license_renew", viewer: viewer, success: "renewed") { event throws(OfflineFailure) in
            try renewLicense(id: id, report: report, viewer: viewer, region: region, event: &event)
        }
    }

    /// `DELETE /media/v1/offline-license/{licenseId}`: gives the licence back, freeing its device
    /// slot. `noSuchLicense` when it is not this viewer's or already released.
    package func release(id: String?, report: Result<OfflinePlayReport, OfflineFailure>, viewer: Identity) throws(OfflineFailure) {
        try audited("offline_license_release", viewer: viewer, success: "released") { event throws(OfflineFailure) in
            let (record, report) = try ownedLicense(id: id, report: report, viewer: viewer, event: &event)
            let now = media.clock()
            try recordFirstPlay(report, of: record, now: now)
            let released: Bool
            do {
                released = try store.release(id: record.id, viewer: viewer.storeKey, now: now)
            } catch {
                throw .storeUnavailable
            }
            guard released else { throw .noSuchLicense }
        }
    }

    // MARK: Issue

    private func issueLicense(_ request: Result<OfflineLicenseRequest, OfflineFailure>, viewer: Identity, region: String?,
                              event: inout MediaAuditEvent) throws(OfflineFailure) -> OfflineLicenseAnswer {
        let now = media.clock()
        try consumeRateToken(viewer: viewer, now: now)
        let body = try request.get()
        if CanonicalUUID.isCanonical(body.assetID) { event.asset = body.assetID }
        let bytes = Array(body.manifest)
        let manifest: AdmittedManifest
        do {
            manifest = try media.admitted(bytes, now: now)
        } catch {
            if OfflineManifestFacts.isPerSegmentPackage(bytes) { throw .denied(.offlineProfileUnsupported) }
            throw .manifestRefused(error.auditReason)
        }
        guard body.assetID == manifest.policyUUID else { throw .manifestRefused(ManifestRefusal.assetMismatch.rawValue) }
        guard let rules = manifest.rules, rules.allowsOffline else { throw .denied(.offlineNotAllowed) }

        let playKey = MediaAuthorizer.firstPlayKey(asset: manifest.policy, viewer: viewer)
        let decision = try decide(asset: manifest.policy, playKey: playKey, viewer: viewer, region: region, now: now)
        guard let signer = keyRing.current.activeLicenseSigner else { throw .signingUnavailable }
        let keyIDs = OfflineManifestFacts.keyIDs(bytes)
        var keys: [OfflineLicenseKey] = []
        for component in manifest.components {
            guard let keyID = keyIDs[component.id] else {
                throw .manifestRefused(ManifestRefusal.componentsMalformed.rawValue)
            }
            do {
                keys.append(try OfflineLicenseKey(component: component.kind, keyID: keyID, key: component.key, device: body.device))
            } catch {
                throw .unavailable("key wrap failed", "rewrap_failed")
            }
        }
        let id: String
        do {
            id = Base64URL.encode(try SecureRandom.bytes(count: 16))
        } catch {
            throw .unavailable("random generator unavailable", "random_failure")
        }
        let license = OfflineLicense(
            asset: manifest.policyUUID, subject: viewer.subject, licenseID: id, deviceThumbprint: body.device.thumbprint,
            issuedAt: OfflineTimestamp.numericDate(now), expiresAt: OfflineTimestamp.numericDate(decision.expires),
            playbackWindowSeconds: decision.playbackWindow, rentalEndsAt: decision.rentalEnds.map(OfflineTimestamp.numericDate),
            keys: keys)
        let compact = try sign(license, with: signer)
        let record = OfflineLicenseRecord(
            id: id, viewer: viewer.storeKey, asset: manifest.policyUUID, playKey: playKey,
            deviceThumbprint: body.device.thumbprint, deviceName: body.deviceName, signingKid: signer.kid, issued: now,
            expires: decision.expires, rentalEnds: decision.rentalEnds, rules: JSONWriter.string(rules.jsonValue),
            dataAttributes: JSONWriter.string(.array(manifest.dataAttributes.map { .string($0) })),
            dissem: JSONWriter.string(.array(manifest.dissem.map { .string($0) })),
            keys: JSONWriter.string(.array(keys.map(\.jsonValue))), released: nil, firstPlayed: nil)
        let outcome: OfflineIssueOutcome
        do {
            outcome = try store.issue(record, maxDevices: rules.effectiveMaxOfflineDevices, now: now)
        } catch {
            throw .storeUnavailable
        }
        guard case .issued = outcome else { throw .deviceLimit }
        return answer(compact, id: id, expires: decision.expires)
    }

    // MARK: Renew

    private func renewLicense(id: String?, report: Result<OfflinePlayReport, OfflineFailure>, viewer: Identity, region: String?,
                              event: inout MediaAuditEvent) throws(OfflineFailure) -> OfflineLicenseAnswer {
        var (record, report) = try ownedLicense(id: id, report: report, viewer: viewer, event: &event)
        let now = media.clock()
        try consumeRateToken(viewer: viewer, now: now)
        guard record.isLive(at: now) else { throw .noSuchLicense }
        try recordFirstPlay(report, of: record, now: now)
        guard let rulesValue = try? JSONParser.parse(Data(record.rules.utf8)), let rules = try? MediaRules(json: rulesValue),
              let attributes = Self.strings(record.dataAttributes), let dissem = Self.strings(record.dissem),
              let keysValue = try? JSONParser.parse(Data(record.keys.utf8)), case .array(let keyItems) = keysValue
        else { throw .storeUnavailable }
        let asset = MediaAssetPolicy(policyUUID: record.asset, dataAttributes: attributes, dissem: dissem, rules: rules)
        let decision = try decide(asset: asset, playKey: record.playKey, viewer: viewer, region: region, now: now)
        guard let signer = keyRing.current.activeLicenseSigner else { throw .signingUnavailable }
        // The stored keys are the licence's own, wrapped to its device: a renewal carries exactly them.
        var keys: [OfflineLicenseKey] = []
        for item in keyItems {
            guard let key = try? OfflineLicenseKey(json: item) else { throw .storeUnavailable }
            keys.append(key)
        }
        let license = OfflineLicense(
            asset: record.asset, subject: viewer.subject, licenseID: record.id, deviceThumbprint: record.deviceThumbprint,
            issuedAt: OfflineTimestamp.numericDate(now), expiresAt: OfflineTimestamp.numericDate(decision.expires),
            playbackWindowSeconds: decision.playbackWindow, rentalEndsAt: decision.rentalEnds.map(OfflineTimestamp.numericDate),
            keys: keys)
        let compact = try sign(license, with: signer)
        record.signingKid = signer.kid
        record.issued = now
        record.expires = decision.expires
        record.rentalEnds = decision.rentalEnds
        let renewed: Bool
        do {
            renewed = try store.renew(record, now: now)
        } catch {
            throw .storeUnavailable
        }
        guard renewed else { throw .noSuchLicense }
        return answer(compact, id: record.id, expires: decision.expires)
    }

    // MARK: Shared steps

    /// When the licence ends and for how long it plays: `offlineLicenseDuration` from now, never
    /// past the rental (`OfflineRentalBound`); a rental already over is refused with its reason.
    private func decide(asset: MediaAssetPolicy, playKey: String, viewer: Identity, region: String?,
                        now: Date) throws(OfflineFailure) -> OfflineTerms {
        guard let rules = asset.rules, rules.allowsOffline else { throw .denied(.offlineNotAllowed) }
        let firstPlay: Date?
        do {
            firstPlay = try media.store.firstPlay(viewer: viewer.storeKey, asset: playKey)
        } catch {
            throw .storeUnavailable
        }
        // Offline viewing holds no stream: the concurrency rule does not apply to it.
        var offlineRules = rules
        offlineRules.maxConcurrentStreams = nil
        let input = MediaPolicyInput(
            policyUUID: asset.policyUUID, dataAttributes: asset.dataAttributes, dissem: asset.dissem, rules: offlineRules, viewer: viewer,
            region: region,
            device: .software(reportedVirtualMachine: nil), firstPlay: firstPlay, playbackRank: nil, now: now)
        if let denial = MediaRuleEvaluator.evaluate(input) { throw .denied(denial) }
        guard let terms = OfflineTerms(rules: rules, purchase: viewer.rentalPurchaseTime(policyUUID: asset.policyUUID),
                                       firstPlay: firstPlay, now: now)
        else { throw .denied(.rentalPlaybackWindowClosed) }
        return terms
    }

    /// The viewer's licence named by the path, and the body's play report.
    private func ownedLicense(id: String?, report: Result<OfflinePlayReport, OfflineFailure>, viewer: Identity,
                              event: inout MediaAuditEvent) throws(OfflineFailure) -> (OfflineLicenseRecord, OfflinePlayReport) {
        let report = try report.get()
        guard let id, Self.isLicenseID(id) else { throw .noSuchLicense }
        let found: OfflineLicenseRecord?
        do {
            found = try store.license(id: id)
        } catch {
            throw .storeUnavailable
        }
        guard let record = found, record.viewer == viewer.storeKey, record.released == nil else { throw .noSuchLicense }
        event.asset = record.asset
        return (record, report)
    }

    /// The first offline play the player reports starts the rental's playback window, as a first
    /// key delivery does online; the earliest report counts. A time in the future is taken as
    /// now: a later start would lengthen the window, an earlier one only shortens it.
    private func recordFirstPlay(_ report: OfflinePlayReport, of record: OfflineLicenseRecord, now: Date) throws(OfflineFailure) {
        guard let reported = report.firstPlayedAt else { return }
        let played = min(reported, now)
        do {
            try store.recordFirstPlay(id: record.id, at: played)
            try media.store.recordFirstPlay(viewer: record.viewer, asset: record.playKey, at: played)
        } catch {
            throw .storeUnavailable
        }
    }

    /// One token from the viewer's key-request bucket (`ViewerRateLimit.keyRequest`).
    private func consumeRateToken(viewer: Identity, now: Date) throws(OfflineFailure) {
        let decision: RateLimitDecision
        do {
            decision = try media.store.consumeRateToken(key: ViewerRateLimit.keyRequest.bucket(viewer: viewer.storeKey),
                                                        perMinute: media.configuration.keyRequestsPerMinute, now: now)
        } catch {
            throw .storeUnavailable
        }
        if case .limited(let retryAfter) = decision { throw .rateLimited(retryAfter) }
    }

    private func sign(_ license: OfflineLicense, with signer: OfflineLicenseSigner) throws(OfflineFailure) -> String {
        do {
            return try license.signed(with: signer.signingKey)
        } catch {
            throw .signingUnavailable
        }
    }

    private func answer(_ compact: String, id: String, expires: Date) -> OfflineLicenseAnswer {
        OfflineLicenseAnswer(license: compact, licenseID: id, expiresAt: expires)
    }

    /// Runs one route's work, auditing its outcome and counting a refusal.
    private func audited<Answer>(_ name: String, viewer: Identity, success: String,
                                 _ body: (inout MediaAuditEvent) throws(OfflineFailure) -> Answer) throws(OfflineFailure) -> Answer {
        let began = ContinuousClock.now
        var event = MediaAuditEvent.denied(name, viewer: viewer, reason: "", time: media.clock())
        event.protocol = MediaProtocol.tdf.rawValue
        do {
            let response = try body(&event)
            media.finish(&event, .allow, reason: success, since: began)
            media.metrics?.increment("media_offline_licenses_total", help: "Offline licence operations that succeeded, by operation.",
                                     labels: [("operation", success)])
            return response
        } catch {
            media.finish(&event, error.decision, reason: error.auditReason, since: began)
            media.countDenial(error.auditReason)
            throw error
        }
    }

    /// 16 random bytes in unpadded base64url (22 characters).
    static func isLicenseID(_ text: String) -> Bool {
        text.utf8.count == 22 && (try? Base64URL.decode(text))?.count == 16
    }

    private static func strings(_ text: String) -> [String]? {
        guard case .array(let items)? = try? JSONParser.parse(Data(text.utf8)) else { return nil }
        return items.compactMap(\.string)
    }
}
