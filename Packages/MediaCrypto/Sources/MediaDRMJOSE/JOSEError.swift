/// Every failure of the JOSE module. Compared by `code`; `reason` is a fixed sentence that never
/// contains a token, a signature, a key or a claim value (tokens are bearer secrets, and claim
/// values are attacker-chosen text that must not reach logs unfiltered).
public struct JOSEError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not a compact JWS: segment count, base64url, JSON, header shape, member types.
        case malformed
        /// `alg` is `none` or an algorithm this module does not implement.
        case unsupportedAlgorithm
        /// The token's `alg` is not the algorithm bound to the key(s) it selects.
        case algorithmMismatch
        /// No candidate key verifies the signature, or the signature has the wrong length.
        case badSignature
        /// No configured key has the token's `kid`, or no keys are configured.
        case unknownKey
        /// `crit`, `b64: false` or a nested JWT: header semantics this module does not implement.
        case unsupportedHeader
        case expired
        case notYetValid
        case issuedInFuture
        case wrongIssuer
        case wrongAudience
        case missingClaim
        /// A claim is present with the wrong JSON type (a date as a string, `aud` not strings...).
        case invalidClaim
        /// A key cannot be used: wrong type or curve, too short, not for signatures, bad encoding.
        case invalidKey
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "JOSE error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: JOSEError, rhs: JOSEError) -> Bool { lhs.code == rhs.code }
}
