import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJOSE
import MediaDRMTDF

/// The rewrap of OpenTDF key access objects to a client's key, as a pure value: no HTTP, no
/// clock or key ring it does not get handed.
///
/// For each policy of the request: the policy text is parsed strictly; every key access
/// object is unwrapped with the KAS keys and its policy binding verified (either form) over
/// the policy text exactly as received; only then is the entitlement rule applied, and only
/// objects that passed all of that are rewrapped (RSA client key: OAEP SHA-1; P-256 client
/// key: ECDH with one KAS ephemeral key per response, HKDF, AES-256-GCM, the ephemeral public
/// key returned as `sessionPublicKey`). Each object gets `permit` with its wrapped key or
/// `fail` with a fixed reason; a failure never carries key material.
package struct OpenTDFRewrapService: Sendable {
    /// What to do with a policy carrying `arkavo:media` rules (rental windows, concurrency,
    /// regions, HDCP), which the OpenTDF routes have no session to enforce.
    public enum MediaPolicyHandling: Sendable {
        /// Refuse: such keys are delivered only through the media key-request route.
        case refuse
        /// Apply only the entitlement rule (for deployments that enforce media rules elsewhere).
        case ignore
    }

    public var keys: any OpenTDFKeyProvider
    public var clock: @Sendable () -> Date
    public var clockSkew: TimeInterval
    public var requestLimits: UnsignedRewrapRequest.Limits
    public var policyLimits: TDFLimits
    public var mediaPolicies: MediaPolicyHandling
    /// Sizes an unwrapped key may have: AES-128 (fps-v2 component keys) and AES-256 (TDF
    /// payload keys and their splits).
    public var acceptedKeySizes: Set<Int>

    public init(keys: any OpenTDFKeyProvider, clock: @escaping @Sendable () -> Date = { Date() },
                clockSkew: TimeInterval = SignedRequestToken.defaultClockSkew,
                mediaPolicies: MediaPolicyHandling = .refuse) {
        self.keys = keys
        self.clock = clock
        self.clockSkew = clockSkew
        self.requestLimits = .default
        self.policyLimits = .default
        self.mediaPolicies = mediaPolicies
        self.acceptedKeySizes = [16, 32]
    }

    /// Checks the signed request token (times always; signature when `dpopKey` is given) and
    /// rewraps. Throws for a request that is refused as a whole (malformed, unauthenticated, or
    /// a v1 request whose one object failed); per-object failures of v2 are in the response.
    public func rewrap(_ request: RewrapRequest, entity: OpenTDFEntity,
                       dpopKey: JWSVerificationKey? = nil) throws(OpenTDFError) -> RewrapResponse {
        let unsigned = try SignedRequestToken.parse(request.signedRequestToken, now: clock(), clockSkew: clockSkew,
                                                    dpopKey: dpopKey, limits: requestLimits)
        return try rewrap(unsigned, entity: entity)
    }

    public func rewrap(_ request: UnsignedRewrapRequest, entity: OpenTDFEntity) throws(OpenTDFError) -> RewrapResponse {
        let client = try ClientKey(pem: request.clientPublicKey)
        var session: ECP256.KeyAgreement.PrivateKey?
        if case .ec = client {
            do {
                session = try ECP256.KeyAgreement.PrivateKey()
            } catch {
                throw OpenTDFError(.internalFailure, "could not generate the session key")
            }
        }

        var response = RewrapResponse()
        for policyRequest in request.requests {
            let results = process(policyRequest, entity: entity, client: client, session: session)
            response.responses.append(PolicyRewrapResult(policyID: policyRequest.policyID, results: results))
        }
        if let session { response.sessionPublicKey = session.publicKey.pemRepresentation }

        if request.isV1 {
            guard let result = response.responses.first?.results.first else {
                throw OpenTDFError(.malformedRequest, "the request has no key access object")
            }
            switch result.outcome {
            case .kasWrappedKey(let key):
                response.entityWrappedKey = key
            case .error(let reason):
                throw OpenTDFError(reason.hasPrefix(Self.forbiddenPrefix) ? .permissionDenied : .malformedRequest, reason)
            case nil:
                throw OpenTDFError(.internalFailure, "the key access object was not processed")
            }
        }
        return response
    }

    static let forbiddenPrefix = "forbidden"
    static let policyBindingFailure = "the policy binding does not verify"

    private func process(_ request: UnsignedRewrapRequest.PolicyRequest, entity: OpenTDFEntity, client: ClientKey,
                         session: ECP256.KeyAgreement.PrivateKey?) -> [KeyAccessRewrapResult] {
        let policy: TDFPolicy
        do {
            policy = try TDFPolicy(base64: request.policyBody, limits: policyLimits)
        } catch {
            return request.keyAccessObjects.map { .failed($0.id, "bad request: the policy is not canonical base64 of a policy object") }
        }

        // Unwrap and verify every object before any decision or rewrap.
        var verified: [(id: String, key: SecretKey)] = []
        var results: [String: KeyAccessRewrapResult] = [:]
        for entry in request.keyAccessObjects {
            switch unwrapAndVerify(entry, policyBase64: request.policyBody) {
            case .success(let key): verified.append((entry.id, key))
            case .failure(let error): results[entry.id] = .failed(entry.id, "bad request: \(error.reason)")
            }
        }

        var decision = OpenTDFEntitlementRule.decide(policy: policy, entity: entity)
        if decision == .permit, policy.media != nil, mediaPolicies == .refuse {
            decision = .deny("forbidden: the policy has media rules; request keys through the media key-request route")
        }
        for (id, key) in verified {
            switch decision {
            case .deny(let reason):
                results[id] = .failed(id, reason)
            case .permit:
                do {
                    results[id] = .permitted(id, wrappedKey: try client.wrap(key, session: session))
                } catch {
                    results[id] = .failed(id, "bad request: \(error.reason)")
                }
            }
        }
        return request.keyAccessObjects.map { results[$0.id] ?? .failed($0.id, "kao not processed by kas") }
    }

    /// One key access object unwrapped with the KAS keys, its size checked and its policy binding
    /// verified over `policyBase64` exactly as received. Shared with the media rewrap route
    /// (`MediaRewrapService`), which needs the same per-object checks before its media policy.
    func unwrapAndVerify(_ entry: UnsignedRewrapRequest.KeyAccessEntry, policyBase64: String) -> Result<SecretKey, OpenTDFError> {
        let object: KeyAccessObject
        switch entry.keyAccess {
        case .success(let parsed): object = parsed
        case .failure(let error): return .failure(error)
        }
        guard let algorithm = KeyAlgorithm(keyAccessType: object.type) else {
            return .failure(OpenTDFError(.malformedRequest, "the key access type is not wrapped or ec-wrapped"))
        }
        let candidates = keys.privateKeys(algorithm: algorithm, kid: object.kid)
        guard !candidates.isEmpty else {
            return .failure(OpenTDFError(.notFound, "no KAS key matches the key access object's kid and type"))
        }
        var unwrapped: SecretKey?
        for candidate in candidates {
            if let key = try? object.unwrap(with: candidate) {
                unwrapped = key
                break
            }
        }
        guard let key = unwrapped else {
            return .failure(OpenTDFError(.malformedRequest, "the wrapped key does not unwrap with this KAS's keys"))
        }
        guard acceptedKeySizes.contains(key.bitCount / 8) else {
            return .failure(OpenTDFError(.malformedRequest, "the unwrapped key has an unexpected size"))
        }
        guard object.isPolicyBindingValid(policyBase64: policyBase64, key: key) else {
            return .failure(OpenTDFError(.malformedRequest, Self.policyBindingFailure))
        }
        return .success(key)
    }
}

/// The client's public key from `clientPublicKey`.
enum ClientKey {
    case rsa(RSA.PublicKey)
    case ec(ECP256.KeyAgreement.PublicKey)

    init(pem: String) throws(OpenTDFError) {
        guard !pem.isEmpty else { throw OpenTDFError(.malformedRequest, "clientPublicKey is missing") }
        if let key = try? RSA.PublicKey(pemRepresentation: pem) {
            self = .rsa(key)
        } else if let key = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) {
            self = .ec(key)
        } else {
            throw OpenTDFError(.malformedRequest, "clientPublicKey is not an RSA (2048+) or P-256 PEM public key")
        }
    }

    func wrap(_ key: SecretKey, session: ECP256.KeyAgreement.PrivateKey?) throws(OpenTDFError) -> Data {
        switch self {
        case .rsa(let publicKey):
            do {
                return try publicKey.encrypt(key.withUnsafeBytes { Data($0) }, padding: .oaepSHA1)
            } catch {
                throw OpenTDFError(.internalFailure, "RSA-OAEP wrap to the client key failed")
            }
        case .ec(let publicKey):
            guard let session else { throw OpenTDFError(.internalFailure, "no session key for an EC client") }
            do {
                return try ECWrap.seal(key, sender: session, recipient: publicKey)
            } catch {
                throw OpenTDFError(.internalFailure, "EC wrap to the client key failed")
            }
        }
    }
}
