// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// Every failure of a playback: admission, key acquisition, verification, decryption, output.
/// Compared by `code`. `reason` is a fixed sentence chosen by the client: it never quotes a
/// server body, never holds a token, key, wrapped key, session id or policy uuid.
public struct PlaybackError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// fps-v2 admission refused the package; `check` names the failed `AdmissionCheck`.
        case refused
        /// The source is not a package, a package directory or a tdf-hls master playlist.
        case invalidSource
        /// A caller-supplied value (KAS URL, token, options) is not acceptable.
        case invalidArgument
        /// §10.5: 400, 422 or any status without a meaning of its own; or an answer outside the protocol.
        case malformed
        /// §10.5: 401.
        case unauthorized
        /// §10.5: 403 or 404; an OpenTDF rewrap result `fail`.
        case denied
        /// §10.5: 429.
        case concurrencyLimit
        /// §10.5: 500, 502, 503, 504.
        case transient
        /// The request never got an HTTP answer (connection, TLS, pin, timeout, a refused redirect).
        case transport
        /// A Standard TDF segment failed its root signature, segment hash or policy binding.
        case integrity
        /// An init or media segment could not be read, rewritten or decrypted.
        case media
        /// Reading the package or a segment failed.
        case io
        /// A key's lease ran out before it was renewed.
        case leaseLapsed
        /// The key service ended the media session (heartbeat answered 404).
        case sessionEnded
        /// The playback was stopped (caller, SIGINT, SIGTERM) before it finished.
        case stopped
        /// The process presenting the clear media (ffplay, mpv) failed; the reason quotes it.
        case presentation
    }

    public let code: Code
    public let reason: String
    /// For `.refused`: the raw value of the `AdmissionCheck` that failed.
    public let check: String?
    /// The HTTP status behind a key-service failure.
    public let status: Int?
    /// Why the key service refused this viewer, when its answer said (a known code only).
    public let refusal: Refusal?

    public init(_ code: Code, _ reason: String, check: String? = nil, status: Int? = nil, refusal: Refusal? = nil) {
        self.code = code
        self.reason = reason
        self.check = check
        self.status = status
        self.refusal = refusal
    }

    /// The fps-v2 §10.5 mapping of a key-service status, with the refusal the answer carried
    /// (its explanation ends the sentence). No server text is kept.
    public static func keyService(status: Int, route: String, refusal: Refusal? = nil) -> PlaybackError {
        let code: Code
        switch status {
        case 400, 422: code = .malformed
        case 401: code = .unauthorized
        case 403, 404: code = .denied
        case 429: code = .concurrencyLimit
        case 500, 502, 503, 504: code = .transient
        default: code = .malformed
        }
        var reason = "the key service answered \(route) with HTTP \(status)"
        if let refusal { reason += ": \(refusal.explanation)" }
        return PlaybackError(code, reason, status: status, refusal: refusal)
    }

    /// Whether a later attempt could succeed (only transient failures and transport errors);
    /// the client itself never retries a denial.
    public var isTransient: Bool { code == .transient || code == .transport }

    public var description: String {
        var text = "playback error (\(code.rawValue)): \(reason)"
        if let check { text += " [check \(check)]" }
        if let refusal { text += " [refusal \(refusal.code)]" }
        return text
    }

    public static func == (lhs: PlaybackError, rhs: PlaybackError) -> Bool { lhs.code == rhs.code }
}

extension PlaybackError {
    /// A transport failure on a key-service route: a status is mapped by §10.5, anything else
    /// (no answer, TLS, pin, a refused redirect) is `.transport`.
    static func from(_ error: TransportError, route: String) -> PlaybackError {
        if error.code == .httpStatus, let status = error.status { return keyService(status: status, route: route) }
        if error.code == .redirectRefused {
            return PlaybackError(.transport, "the key service answered \(route) with a redirect, which is never followed",
                                 status: error.status)
        }
        return PlaybackError(.transport, "\(route): \(error.reason)")
    }

    static func media(_ error: MediaError, _ context: String) -> PlaybackError {
        PlaybackError(.media, "\(context): \(error.reason)")
    }
}
