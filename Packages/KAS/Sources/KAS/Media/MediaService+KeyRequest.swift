import MediaDRMFPSv2
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMTDF
import MediaDRMMedia

/// Why a key request ended without a key: the answer, and the audit reason code.
struct KeyRequestFailure: Error {
    let error: HTTPError
    let reason: String
    let decision: MediaAuditEvent.Decision

    static func refused(_ refusal: ManifestRefusal) -> KeyRequestFailure {
        KeyRequestFailure(error: HTTPError(.forbidden, reason: "manifest refused"), reason: refusal.rawValue, decision: .deny)
    }

    static func denied(_ denial: MediaDenial) -> KeyRequestFailure {
        KeyRequestFailure(error: denial.keyRequestRefusal, reason: denial.rawValue, decision: .deny)
    }

    static func malformed(_ reason: String) -> KeyRequestFailure {
        KeyRequestFailure(error: HTTPError(.badRequest, reason: "malformed key request"), reason: reason, decision: .deny)
    }

    static func unavailable(_ public: String, _ reason: String) -> KeyRequestFailure {
        KeyRequestFailure(error: HTTPError(.serviceUnavailable, reason: `public`), reason: reason, decision: .error)
    }
}

extension MediaService {
    static let keyRequestMembers = MediaKeyRequestBody.members

    /// `POST /media/v1/key-request`. Statuses (fps-v2 §10.5): 400 malformed body, 401 no viewer,
    /// 403 `"manifest refused"` for every §10.7 failure (and a session that is not live, not this
    /// viewer's or not this asset's; the cause goes only to the audit log), 403 `"platform
    /// refused"` with the `MediaDenial` code for a policy denial, 429 rate limit,
    /// 503 FairPlay or store unavailable.
    public func keyRequest(_ request: ServerRequest, context: inout RequestContext) throws(HTTPError) -> ServerResponse {
        let began = ContinuousClock.now
        let viewer = try authenticate(&context)
        var event = MediaAuditEvent.denied("key_request", viewer: viewer, reason: "", time: clock())
        do {
            let response = try deliverKey(request, viewer: viewer, event: &event)
            event.decision = .allow
            event.reason = "key_delivered"
            event.latencyMilliseconds = Self.milliseconds(since: began)
            audit?.record(event)
            metrics?.increment("media_keys_delivered_total", help: "Content keys delivered, by protocol.",
                               labels: [("protocol", event.protocol ?? "unknown")])
            return response
        } catch {
            event.decision = error.decision
            event.reason = error.reason
            event.latencyMilliseconds = Self.milliseconds(since: began)
            audit?.record(event)
            countDenial(error.reason)
            throw error.error
        }
    }

    private func deliverKey(_ request: ServerRequest, viewer: Identity,
                            event: inout MediaAuditEvent) throws(KeyRequestFailure) -> ServerResponse {
        let now = clock()
        // The rate limit comes first: a flood costs one store write per request, nothing more.
        let rate: RateLimitDecision
        do {
            rate = try store.consumeRateToken(key: "key:" + viewer.storeKey, perMinute: configuration.keyRequestsPerMinute, now: now)
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }
        if case .limited(let retryAfter) = rate {
            throw KeyRequestFailure(error: HTTPError(.tooManyRequests, reason: "rate limit",
                                                     headers: ["Retry-After": String(retryAfter)]),
                                    reason: "rate_limited", decision: .deny)
        }

        // The body.
        guard let json = try? request.jsonBody(), case .object(let body) = json else { throw .malformed("malformed_body") }
        guard body.keys.allSatisfy(Self.keyRequestMembers.contains) else { throw .malformed("unknown_member") }
        guard case .string(let asset)? = body["assetId"], case .string(let sessionID)? = body["sessionId"],
              case .string(let manifestText)? = body["tdfManifest"]
        else { throw .malformed("missing_member") }
        if CanonicalUUID.isCanonical(asset) { event.asset = asset }
        var component: String?
        if let value = body["component"] {
            guard case .string(let id) = value else { throw .malformed("component_type") }
            component = id
            if Self.isComponentID(id) { event.component = id }
        }
        let proto: MediaProtocol
        var spc = Data()
        var clientKey: P256.KeyAgreement.PublicKey?
        switch (body["spcData"], body["clientPublicKey"]) {
        case (.string(let text)?, nil):
            proto = .fairplay
            guard let decoded = try? Base64.decode(text), !decoded.isEmpty else { throw .malformed("spc_encoding") }
            spc = decoded
        case (nil, .string(let pem)?):
            proto = .tdf
            guard let key = try? P256.KeyAgreement.PublicKey(pemRepresentation: pem) else { throw .malformed("client_key") }
            clientKey = key
        default:
            throw .malformed("delivery_path")
        }
        event.protocol = proto.rawValue
        var reportedDevice: DeviceReport?
        if let value = body["device"] {
            guard let report = DeviceReport(json: value) else { throw .malformed("device_report") }
            reportedDevice = report
        }
        guard let manifestBytes = try? Base64.decode(manifestText) else { throw .malformed("manifest_encoding") }
        if proto == .fairplay, fairPlay == nil { throw .unavailable("fairplay unavailable", "fairplay_unavailable") }

        // The session: live, this viewer's, this asset's, this path's.
        guard Self.isSessionID(sessionID) else { throw .refused(.sessionInvalid) }
        let idHash = Self.hash(sessionID)
        let session: MediaSessionRecord
        do {
            guard let record = try store.session(idHash: idHash), record.isLive(at: now),
                  record.viewer == viewer.storeKey, record.asset == asset
            else { throw KeyRequestFailure.refused(.sessionInvalid) }
            session = record
        } catch let failure as KeyRequestFailure {
            throw failure
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }
        guard session.protocol == proto else { throw .refused(.sessionProtocol) }

        // The manifest (§10.7 steps 1-3), once per distinct manifest while cached.
        let manifest = try admitted(Array(manifestBytes), now: now)

        // Step 4: the request's pairing with the manifest.
        guard let component else { throw .refused(.componentMissing) }
        guard let admittedComponent = manifest.component(component) else { throw .refused(.componentUnknown) }
        guard asset == manifest.policyUUID else { throw .refused(.assetMismatch) }
        do {
            // A session's component is set once and never changes, so a session read above as
            // already bound to this component needs no write (one store write fewer per request).
            if session.component != component {
                switch try store.bindComponent(idHash: idHash, component: component, now: now) {
                case .conflict: throw KeyRequestFailure.refused(.sessionComponent)
                case .bound(let replaced): auditReplaced(replaced, viewer: viewer, asset: asset, component: component, now: now)
                }
            }
        } catch let failure as KeyRequestFailure {
            throw failure
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }

        // Step 5: the policy decision.
        let device: DeviceCapabilities
        switch proto {
        case .tdf:
            device = MediaAuthorizer.openPathDevice(reported: reportedDevice, session: session)
        case .fairplay:
            guard let fairPlay else { throw .unavailable("fairplay unavailable", "fairplay_unavailable") }
            do {
                device = try fairPlay.clientInfo(spc: spc)
            } catch {
                throw .unavailable("fairplay unavailable", "fairplay_client_info_failed")
            }
        }
        let grant: MediaGrant
        do {
            let decision = try authorizer.authorize(MediaAuthorizationRequest(
                viewer: viewer, session: session, asset: manifest.policy, component: component, device: device,
                region: configuration.regionSource.region(for: request), now: now))
            switch decision {
            case .granted(let granted): grant = granted
            case .denied(let denial): throw KeyRequestFailure.denied(denial)
            }
        } catch let failure as KeyRequestFailure {
            throw failure
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }

        // Step 6-7: the key leaves.
        var members: [(String, JSONValue)] = [("status", .string("success"))]
        switch proto {
        case .tdf:
            guard let clientKey else { throw .malformed("client_key") }
            let wrapped: ECWrap.WrappedKey
            do {
                wrapped = try ECWrap.wrap(admittedComponent.key, to: clientKey)
            } catch {
                throw .unavailable("key wrap failed", "rewrap_failed")
            }
            members.append(("wrappedKey", .string(Base64.encode(wrapped.wrappedKey))))
            members.append(("sessionPublicKey", .string(wrapped.ephemeralPublicKey.pemRepresentation)))
        case .fairplay:
            guard let fairPlay else { throw .unavailable("fairplay unavailable", "fairplay_unavailable") }
            let expected = "\(manifest.policyUUID)/\(admittedComponent.id)"
            let ckcRequest = FairPlayCKCRequest(
                spc: spc, contentKey: admittedComponent.key, contentIV: manifest.iv,
                contentType: admittedComponent.kind == .audio ? .audio : .uhd,
                hdcpType: configuration.fairPlayHDCPType, leaseSeconds: configuration.leaseSeconds, assetID: expected)
            let result: FairPlayCKCResult
            do {
                result = try fairPlay.createCKC(ckcRequest)
            } catch {
                throw .unavailable("fairplay unavailable", "fairplay_ckc_failed")
            }
            // Step 7: the SPC must be for this component; otherwise the CKC is dropped here.
            guard result.spcAssetID == expected else { throw .refused(.spcAssetMismatch) }
            members.append(("wrappedKey", .string(Base64.encode(result.ckc))))
        }
        members.append(("metadata", .object(JSONObject([("lease_seconds", .number(JSONNumber(configuration.leaseSeconds)))]))))
        do {
            try authorizer.recordRelease(grant)
        } catch {
            throw .unavailable("state store unavailable", "store_failure")
        }
        return .json(.object(JSONObject(members)))
    }

    func admitted(_ bytes: [UInt8], now: Date) throws(KeyRequestFailure) -> AdmittedManifest {
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
}
