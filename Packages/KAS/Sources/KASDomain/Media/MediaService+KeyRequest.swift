// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMFPSv2
import MediaDRMMedia
import MediaDRMTDF

/// `key-request` (fps-v2 §10.7, docs/architecture.md "A key request's path"), in named steps:
/// the rate limit, the decoded message, the live session, the admitted manifest, the pairing of
/// request, session and manifest, the authorize step (`MediaAuthorizer`), then the release. Every
/// outcome is audited and counted; a failure is a `MediaFailure` the route adapter answers.
extension MediaService {
    /// `rateLimited: false` when the caller took the viewer's key-request token for several
    /// keys at once (the ClearKey licence: one token per licence request).
    package func keyRequest(_ decoded: Result<MediaKeyRequest, MalformedMediaRequest>,
                    viewer: Identity, rateLimited: Bool = true) throws(MediaFailure) -> MediaKeyAnswer {
        let began = ContinuousClock.now
        let now = clock()
        var event = MediaAuditEvent.denied("key_request", viewer: viewer, reason: "", time: now)
        defer {
            event.latencyMilliseconds = Self.milliseconds(since: began)
            audit?.record(event)
        }
        do throws(MediaFailure) {
            // The rate limit comes first: a flood costs one store write per request, nothing more.
            if rateLimited { try consumeRateToken(.keyRequest, viewer: viewer, now: now) }
            let request: MediaKeyRequest
            switch decoded {
            case .success(let decoded): request = decoded
            case .failure(let malformed):
                event.asset = malformed.asset
                event.component = malformed.component
                event.protocol = malformed.protocol?.rawValue
                throw malformed.failure
            }
            if CanonicalUUID.isCanonical(request.assetID) { event.asset = request.assetID }
            if let component = request.component, MediaSessionID.isComponentID(component) { event.component = component }
            event.protocol = request.delivery.protocol.rawValue
            let answer = try deliverKey(request, viewer: viewer, now: now)
            event.decision = .allow
            event.reason = "key_delivered"
            metrics?.increment("media_keys_delivered_total", help: "Content keys delivered, by protocol.",
                               labels: [("protocol", request.delivery.protocol.rawValue)])
            return answer
        } catch {
            event.decision = error.decision
            event.reason = error.auditReason
            countDenial(error.auditReason)
            throw error
        }
    }

    private func deliverKey(_ request: MediaKeyRequest, viewer: Identity, now: Date) throws(MediaFailure) -> MediaKeyAnswer {
        if case .spc = request.delivery, fairPlay == nil { throw .unavailable(.fairPlay) }
        let session = try liveSession(request.sessionID, viewer: viewer, asset: request.assetID, now: now)
        guard session.protocol == request.delivery.protocol else { throw .refused(.sessionProtocol) }
        let manifest = try admitted(request.manifest, now: now)
        let component = try pair(request, session: session, manifest: manifest, viewer: viewer, now: now)
        let device = try deviceCapabilities(request, session: session)
        let grant: MediaGrant
        do {
            switch try authorizer.authorize(MediaAuthorizationRequest(
                viewer: viewer, session: session, asset: manifest.policy, component: component.id, device: device,
                region: request.region, now: now)) {
            case .granted(let granted): grant = granted
            case .denied(let denial): throw MediaFailure.denied(denial)
            }
        } catch let failure as MediaFailure {
            throw failure
        } catch {
            throw .unavailable(.store)
        }
        let answer = try release(component, of: manifest, to: request.delivery)
        do {
            try authorizer.recordRelease(grant)
        } catch {
            throw .unavailable(.store)
        }
        return answer
    }

    // MARK: Steps

    /// The session a request names: live, this viewer's and this asset's (any asset when `asset`
    /// is nil: the media rewrap checks it per policy); anything else is `session_invalid`,
    /// whichever it is.
    func liveSession(_ sessionID: String, viewer: Identity, asset: String?, now: Date) throws(MediaFailure) -> MediaSessionRecord {
        guard MediaSessionID.isWellFormed(sessionID) else { throw .refused(.sessionInvalid) }
        let record: MediaSessionRecord?
        do {
            record = try store.session(idHash: MediaSessionID.hash(sessionID))
        } catch {
            throw .unavailable(.store)
        }
        guard let record, record.isLive(at: now), record.viewer == viewer.storeKey,
              asset == nil || record.asset == asset else {
            throw .refused(.sessionInvalid)
        }
        return record
    }

    /// §10.7 steps 1-3, once per distinct manifest while cached.
    func admitted(_ bytes: [UInt8], now: Date) throws(MediaFailure) -> AdmittedManifest {
        let digest = ManifestAdmission.digest(of: bytes)
        if let cached = keyCache.lookup(digest: digest, now: now) {
            metrics?.increment("media_key_cache_total", help: "Content-key cache lookups.", labels: [("result", "hit")])
            return cached
        }
        metrics?.increment("media_key_cache_total", help: "Content-key cache lookups.", labels: [("result", "miss")])
        do {
            let manifest = try admission.admit(bytes)
            keyCache.insert(manifest, now: now)
            return manifest
        } catch {
            throw .refused(error)
        }
    }

    /// Step 4: the request names a component of this manifest, the manifest is the session's
    /// asset, and the session holds that component (bound on its first key request).
    private func pair(_ request: MediaKeyRequest, session: MediaSessionRecord, manifest: AdmittedManifest,
                      viewer: Identity, now: Date) throws(MediaFailure) -> AdmittedComponent {
        guard let id = request.component else { throw .refused(.componentMissing) }
        guard let component = manifest.component(id) else { throw .refused(.componentUnknown) }
        guard request.assetID == manifest.policyUUID else { throw .refused(.assetMismatch) }
        // A session's component is set once and never changes, so a session read as already
        // bound to this component needs no write (one store write fewer per request).
        guard session.component != id else { return component }
        let binding: ComponentBinding
        do {
            binding = try store.bindComponent(idHash: session.idHash, component: id, now: now)
        } catch {
            throw .unavailable(.store)
        }
        switch binding {
        case .conflict: throw .refused(.sessionComponent)
        case .bound(let replaced): auditReplaced(replaced, viewer: viewer, asset: request.assetID, component: id, now: now)
        }
        return component
    }

    /// What the device can show: the FairPlay module reads it from the SPC; an open-path client is
    /// software whatever it reports (`MediaAuthorizer.openPathDevice`).
    private func deviceCapabilities(_ request: MediaKeyRequest, session: MediaSessionRecord) throws(MediaFailure) -> DeviceCapabilities {
        switch request.delivery {
        case .clientPublicKey, .clearKey:
            return MediaAuthorizer.openPathDevice(reported: request.device, session: session)
        case .spc(let spc):
            guard let fairPlay else { throw .unavailable(.fairPlay) }
            do {
                return try fairPlay.clientInfo(spc: spc)
            } catch {
                throw .unavailable(.fairPlayClientInfo)
            }
        }
    }

    /// Steps 6-7: the content key leaves, wrapped to the client's key (open path) or in a CKC for
    /// the SPC, which must be for this component (otherwise the CKC is dropped here).
    private func release(_ component: AdmittedComponent, of manifest: AdmittedManifest,
                         to delivery: MediaKeyRequest.Delivery) throws(MediaFailure) -> MediaKeyAnswer {
        let lease = Int64(configuration.leaseSeconds)
        switch delivery {
        case .clientPublicKey(let clientKey):
            let wrapped: ECWrap.WrappedKey
            do {
                wrapped = try ECWrap.wrap(component.key, to: clientKey)
            } catch {
                throw .unavailable(.keyWrap)
            }
            return MediaKeyAnswer(wrappedKey: wrapped.wrappedKey, sessionPublicKey: wrapped.ephemeralPublicKey.pemRepresentation,
                                  leaseSeconds: lease)
        case .clearKey:
            return MediaKeyAnswer(wrappedKey: component.key.withUnsafeBytes { Data($0) }, sessionPublicKey: nil, leaseSeconds: lease)
        case .spc(let spc):
            guard let fairPlay else { throw .unavailable(.fairPlay) }
            let expected = "\(manifest.policyUUID)/\(component.id)"
            let ckcRequest = FairPlayCKCRequest(
                spc: spc, contentKey: component.key, contentIV: manifest.iv,
                contentType: component.kind == .audio ? .audio : .uhd,
                hdcpType: configuration.fairPlayHDCPType, leaseSeconds: configuration.leaseSeconds, assetID: expected)
            let result: FairPlayCKCResult
            do {
                result = try fairPlay.createCKC(ckcRequest)
            } catch {
                throw .unavailable(.fairPlayCKC)
            }
            // The SPC's content id is its key URI after `skd://`, with or without the `kid` and
            // `iv` items an fps-v2 view writes (docs/delivery.md "Cloud Video Kit").
            guard let asked = result.spcAssetID.flatMap({ SKDKeyURI(servedKey: SKDKeyURI.scheme + $0) }),
                  asked.policyUUID == manifest.policyUUID, asked.componentID == component.id, asked.iv.map({ $0 == manifest.iv }) ?? true
            else { throw .refused(.spcAssetMismatch) }
            return MediaKeyAnswer(wrappedKey: result.ckc, sessionPublicKey: nil, leaseSeconds: lease)
        }
    }
}
