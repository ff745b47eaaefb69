import MediaDRMMedia

/// Why an offline operation ended without its answer, and its audit reason code;
/// `OfflineRouteAdapter` gives each its HTTP answer (docs/protocol.md, docs/offline.md). Reasons
/// are fixed sentences; none carries request data.
package enum OfflineFailure: Error, Sendable {
    case malformed(String)
    case manifestRefused(String)
    case denied(MediaDenial)
    case deviceLimit
    case rateLimited(Int)
    case noSuchLicense
    case storeUnavailable
    case signingUnavailable
    case unavailable(String, String)

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
