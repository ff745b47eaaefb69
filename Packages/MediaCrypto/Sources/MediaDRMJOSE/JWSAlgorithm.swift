/// The JWS algorithms this module signs and verifies (RFC 7518 §3). Anything else, `none`
/// included, is refused when a token is read.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HMAC with SHA-256.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, signature as the 64-byte `r ‖ s`.
    case es256 = "ES256"

    public var description: String { rawValue }
}
