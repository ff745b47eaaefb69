// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMMedia

/// Why a media request ended without what it asked for, as the media service decides it; the
/// route adapter turns each case into its HTTP answer in one table (`MediaRouteAdapter.answer`).
/// `auditReason` is the fixed code the audit log and the denial metric carry: never request data.
package enum MediaFailure: Error, Equatable, Sendable {
    /// The request is not the protocol's message: `code` names the broken rule for the audit log
    /// (`malformed_body`, `unknown_member`, `device_report`...), `message` is the client's answer.
    case malformed(code: String, message: String)
    /// The request is larger than the protocol's bounds: `code` for the audit log, `message`
    /// (naming the bounds) the client's answer.
    case tooLarge(code: String, message: String)
    /// The session id names no live session of this viewer.
    case noSuchSession
    /// No FairPlay application certificate is configured.
    case noCertificate
    /// The viewer's key-request bucket is empty; a token is back in `retryAfter` seconds.
    case rateLimited(retryAfter: Int)
    /// A manifest, pairing or session check of fps-v2 §10.7 failed.
    case refused(ManifestRefusal)
    /// A media rule refused the key (`MediaAuthorizer`).
    case denied(MediaDenial)
    /// A start the viewer's limits refuse (`concurrentStreams`, `tooManySessions`,
    /// `tooManyPlaybacks`).
    case sessionLimit(MediaDenial)
    /// A dependency failed: nothing was decided about the viewer.
    case unavailable(MediaDependencyFailure)

    var auditReason: String {
        switch self {
        case .malformed(let code, _), .tooLarge(let code, _): code
        case .noSuchSession: "no_such_session"
        case .noCertificate: "no_certificate"
        case .rateLimited: "rate_limited"
        case .refused(let refusal): refusal.rawValue
        case .denied(let denial), .sessionLimit(let denial): denial.rawValue
        case .unavailable(let failure): failure.rawValue
        }
    }

    /// A budget or bound ran out (rate limit, the viewer's limits, a store full of live
    /// records): counted in the denial metric by the start routes.
    var isLimit: Bool {
        switch self {
        case .rateLimited, .sessionLimit, .unavailable(.storeFull): true
        default: false
        }
    }

    /// A refusal is a decision about the viewer; a dependency failure is not.
    var decision: MediaAuditEvent.Decision {
        if case .unavailable = self { return .error }
        return .deny
    }
}

/// The dependency that failed, as the audit log names it.
package enum MediaDependencyFailure: String, Sendable {
    case store = "store_failure"
    /// The store holds its bound of records and every one is live (`RecordBounds`): nothing is
    /// dropped to make room, the start is refused.
    case storeFull = "store_full"
    case randomGenerator = "random_unavailable"
    case fairPlay = "fairplay_unavailable"
    case fairPlayClientInfo = "fairplay_client_info_failed"
    case fairPlayCKC = "fairplay_ckc_failed"
    case keyWrap = "rewrap_failed"
}
