import MediaDRMJOSE

/// Why a request carries no acceptable identity. Every case answers 401 with the same fixed
/// reason; the code (and the JOSE code behind an invalid token) is for logs and metrics only.
public struct IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No `Authorization` header.
        case missingToken
        /// An `Authorization` header that is not exactly one `Bearer <token>`.
        case malformedAuthorization
        /// The token failed verification (see `tokenError`).
        case invalidToken
        /// The token's issuer is configured with `discovery: true` and its key set cannot be used:
        /// never read yet, or stale beyond `maxStaleSeconds` (docs/kas.md "Issuers by discovery").
        case issuerKeysUnavailable
    }

    public let code: Code
    public let reason: String
    /// The JOSE failure behind `.invalidToken`: expired, wrong audience, bad signature...
    public let tokenError: JOSEError.Code?

    public init(_ code: Code, _ reason: String, tokenError: JOSEError.Code? = nil) {
        self.code = code
        self.reason = reason
        self.tokenError = tokenError
    }

    public var description: String {
        "identity error (\(code.rawValue)\(tokenError.map { "/\($0.rawValue)" } ?? "")): \(reason)"
    }

    public static func == (lhs: IdentityError, rhs: IdentityError) -> Bool {
        lhs.code == rhs.code && lhs.tokenError == rhs.tokenError
    }
}
