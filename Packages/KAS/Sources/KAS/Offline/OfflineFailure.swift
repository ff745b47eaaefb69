import MediaDRMMedia

/// Why an offline route ended without its answer: the HTTP answer (docs/protocol.md, docs/offline.md)
/// and the audit reason code. Reasons are fixed sentences; none carries request data.
enum OfflineFailure: Error {
    case malformed(String)
    case manifestRefused(String)
    case denied(MediaDenial)
    case deviceLimit
    case rateLimited(Int)
    case noSuchLicense
    case storeUnavailable
    case signingUnavailable
    case unavailable(String, String)

    var httpError: HTTPError {
        switch self {
        case .malformed(let reason): HTTPError(.badRequest, reason: "malformed offline licence request: \(reason)")
        case .manifestRefused: HTTPError(.forbidden, reason: "manifest refused")
        case .denied(let denial): HTTPError(.forbidden, reason: Self.sentence(denial), code: denial.rawValue)
        case .deviceLimit:
            HTTPError(.tooManyRequests, reason: "offline device limit: release the licence on another device first",
                      code: MediaDenial.offlineDeviceLimit.rawValue)
        case .rateLimited(let retryAfter): HTTPError(.tooManyRequests, reason: "rate limit", headers: ["Retry-After": String(retryAfter)])
        case .noSuchLicense: HTTPError(.notFound, reason: "no such licence")
        case .storeUnavailable: HTTPError(.serviceUnavailable, reason: "state store unavailable")
        case .signingUnavailable:
            HTTPError(.serviceUnavailable, reason: "no offline-license signing key (run 'kas keys generate')")
        case .unavailable(let reason, _): HTTPError(.serviceUnavailable, reason: reason)
        }
    }

    /// The `error` sentence of a policy refusal: the key request's `platform refused`, or what to
    /// do for the offline-only codes.
    private static func sentence(_ denial: MediaDenial) -> String {
        switch denial {
        case .offlineNotAllowed: "offline viewing is not allowed for this asset (its policy has no offline: true)"
        case .offlineProfileUnsupported:
            "offline licences cover fps-v2 packages only: a tdf-hls package has a key per segment"
        default: "platform refused"
        }
    }

    var auditReason: String {
        switch self {
        case .malformed: "malformed_request"
        case .manifestRefused(let code): code
        case .denied(let denial): denial.rawValue
        case .deviceLimit: MediaDenial.offlineDeviceLimit.rawValue
        case .rateLimited: "rate_limited"
        case .noSuchLicense: "no_such_license"
        case .storeUnavailable: "store_failure"
        case .signingUnavailable: "signing_key_missing"
        case .unavailable(_, let code): code
        }
    }

    var decision: MediaAuditEvent.Decision {
        switch self {
        case .storeUnavailable, .signingUnavailable, .unavailable: .error
        default: .deny
        }
    }
}
