import MediaDRMCrypto
import Foundation
import MediaDRMMedia
import MediaDRMTDF

/// `POST /media/v1/rewrap` (docs/protocol.md): the segment keys of a tdf-hls stream whose policy
/// carries media rules, delivered through a live media session so that rentals, stream limits,
/// regions and device rules apply as they do to fps-v2. Like `MediaService`, it decides on typed
/// input and sees no HTTP type: `MediaRewrapRouteAdapter` decodes the request and encodes the
/// answer.
///
/// The checks, in order, all before any key leaves: the viewer's key-request rate limit (one
/// token per request, however many key access objects); the body (`MediaRewrapRequest`); the
/// session (live, this viewer's, open path); each policy parsed strictly, its uuid the session's
/// asset, its `arkavo:media` well formed; every key access object unwrapped and its policy
/// binding verified by the OpenTDF rewrap code (`OpenTDFRewrapService.unwrapAndVerify`); then
/// the media policy of each policy by the key request's own authorize step (`MediaAuthorizer`,
/// which bounds a live key period); for a live catalog title, its event's window and blackouts
/// (`CatalogLiveEvent`). A request is answered whole:
/// one refused object refuses it, so a key access object of another stream costs the request,
/// never leaks a key. Refusals are the key request's `MediaFailure`s (answered 403 `manifest
/// refused` with the cause in the audit log, 403 `platform refused` + `MediaDenial` code, 429,
/// 503), audited as `media_rewrap`.
package final class MediaRewrapService: Sendable {
    let media: MediaService
    let rewrap: OpenTDFRewrapService
    let catalog: (any CatalogStore)?

    /// `keys`: the KAS key ring (RSA `wrapped` and P-256 `ec-wrapped` objects, by kid or the
    /// active key then retired ones, as on the OpenTDF routes). `catalog`: where live titles'
    /// events are; nil (or an asset not catalogued) leaves only the policy's rules.
    public init(media: MediaService, keys: any OpenTDFKeyProvider, catalog: (any CatalogStore)? = nil) {
        self.media = media
        self.rewrap = OpenTDFRewrapService(keys: keys, clock: media.clock)
        self.catalog = catalog
    }

    /// One request, audited and counted whatever its outcome. `decoded` is the body as the route
    /// adapter read it: a malformed body is refused after the rate limit, as the key request's
    /// is. `region`: where the client is (`TrustedRegionSource`), nil when unknown.
    package func rewrap(_ decoded: Result<MediaRewrapRequest, MediaFailure>, viewer: Identity,
                region: String?) throws(MediaFailure) -> RewrapResponse {
        let began = ContinuousClock.now
        var event = MediaAuditEvent.denied("media_rewrap", viewer: viewer, reason: "", time: media.clock())
        event.protocol = MediaProtocol.tdf.rawValue
        do throws(MediaFailure) {
            let (response, delivered) = try deliverKeys(decoded, viewer: viewer, region: region, event: &event)
            media.finish(&event, .allow, reason: "keys_delivered", since: began)
            media.metrics?.increment("media_keys_delivered_total", help: "Content keys delivered, by protocol.",
                                     labels: [("protocol", "tdf-hls")], by: delivered)
            return response
        } catch {
            media.finish(&event, error.decision, reason: error.auditReason, since: began)
            media.countDenial(error.auditReason)
            throw error
        }
    }

    private struct VerifiedPolicy {
        let request: UnsignedRewrapRequest.PolicyRequest
        let policy: MediaAssetPolicy
        let keys: [(id: String, key: SecretKey)]
    }

    private func deliverKeys(_ decoded: Result<MediaRewrapRequest, MediaFailure>, viewer: Identity, region: String?,
                             event: inout MediaAuditEvent) throws(MediaFailure) -> (RewrapResponse, Int) {
        let now = media.clock()
        // The rate limit comes first: a flood costs one store write per request, nothing more.
        try media.consumeRateToken(.keyRequest, viewer: viewer, now: now)
        let body = try decoded.get()

        // The session: live, this viewer's, the open path's, bound to the rendition it named at
        // its start; its asset is checked per policy.
        let session = try media.liveSession(body.sessionID, viewer: viewer, asset: nil, now: now)
        event.asset = session.asset
        event.component = session.component
        guard session.protocol == .tdf else { throw .refused(.sessionProtocol) }
        guard let rendition = session.component else { throw .refused(.sessionComponent) }

        // Every policy and every key access object verified before any decision.
        var verified: [VerifiedPolicy] = []
        for policyRequest in body.bulk.requests {
            verified.append(try verify(policyRequest, asset: session.asset))
        }

        // The media policy: the key request's authorize step, for each policy.
        let device = MediaAuthorizer.openPathDevice(reported: nil, session: session)
        var grants: [MediaGrant] = []
        for entry in verified {
            let decision: MediaAuthorization
            do {
                decision = try media.authorizer.authorize(MediaAuthorizationRequest(
                    viewer: viewer, session: session, asset: entry.policy, component: rendition, device: device,
                    region: region, now: now))
            } catch {
                throw .unavailable(.store)
            }
            switch decision {
            case .granted(let grant): grants.append(grant)
            case .denied(let denial): throw .denied(denial)
            }
        }
        if let denial = try liveEventRefusal(asset: session.asset, region: region, now: now) { throw .denied(denial) }

        // The keys leave, each wrapped to the client key with one KAS ephemeral key per response.
        let ephemeral: ECP256.KeyAgreement.PrivateKey
        do {
            ephemeral = try ECP256.KeyAgreement.PrivateKey()
        } catch {
            throw .unavailable(.randomGenerator)
        }
        var response = RewrapResponse(sessionPublicKey: ephemeral.publicKey.pemRepresentation)
        var delivered = 0
        for entry in verified {
            var results: [KeyAccessRewrapResult] = []
            for (id, key) in entry.keys {
                do {
                    results.append(.permitted(id, wrappedKey: try body.clientKey.wrap(key, session: ephemeral)))
                } catch {
                    throw .unavailable(.keyWrap)
                }
            }
            delivered += results.count
            response.responses.append(PolicyRewrapResult(policyID: entry.request.policyID, results: results))
        }
        do {
            for grant in grants { try media.authorizer.recordRelease(grant) }
        } catch {
            throw .unavailable(.store)
        }
        return (response, delivered)
    }

    /// The catalog's live event of the asset, if it is a live title: its refusal of this viewer now.
    private func liveEventRefusal(asset: String, region: String?, now: Date) throws(MediaFailure) -> MediaDenial? {
        guard let catalog else { return nil }
        let entry: CatalogEntry?
        do {
            entry = try catalog.entry(assetID: asset)
        } catch {
            throw .unavailable(.store)
        }
        return entry?.live?.refusal(region: region, now: now, dvrSeconds: media.configuration.livePeriods.dvrSeconds)
    }

    /// One policy of the request: parsed strictly, of the session's asset, with well-formed media
    /// rules and data attributes; each of its key access objects unwrapped and bound to it.
    private func verify(_ request: UnsignedRewrapRequest.PolicyRequest, asset: String) throws(MediaFailure) -> VerifiedPolicy {
        guard let policy = try? TDFPolicy(base64: request.policyBody, limits: rewrap.policyLimits) else {
            throw .refused(.malformedPolicy)
        }
        guard policy.uuid == asset else { throw .refused(.assetMismatch) }
        let dataAttributes = policy.body.dataAttributes.map(\.attribute)
        guard !dataAttributes.isEmpty else { throw .refused(.dataAttributesMissing) }
        let rules: MediaRules?
        do {
            rules = try policy.media.map { value throws(ManifestRefusal) in try ManifestAdmission.rules(value) }
        } catch {
            throw .refused(error)
        }
        var keys: [(id: String, key: SecretKey)] = []
        for entry in request.keyAccessObjects {
            switch rewrap.unwrapAndVerify(entry, policyBase64: request.policyBody) {
            case .success(let key):
                keys.append((entry.id, key))
            case .failure(let error):
                if error.reason == OpenTDFRewrapService.policyBindingFailure { throw .refused(.policyBinding) }
                if case .failure = entry.keyAccess { throw .refused(.keyAccessMalformed) }
                throw .refused(.unwrapFailed)
            }
        }
        let asset = MediaAssetPolicy(policyUUID: policy.uuid, dataAttributes: dataAttributes, dissem: policy.body.dissem,
                                     rules: rules)
        return VerifiedPolicy(request: request, policy: asset, keys: keys)
    }
}
