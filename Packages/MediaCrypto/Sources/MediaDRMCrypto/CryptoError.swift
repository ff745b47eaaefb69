/// Every failure of the Crypto module. Compared by `code`; `reason` is a fixed, secret-free
/// sentence for people (it never contains key material, plaintext or OpenSSL's error queue text
/// about data).
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A key, IV, nonce or tag has the wrong size.
        case invalidSize
        /// Input data is not acceptable (length not a multiple of the block, empty where forbidden).
        case invalidInput
        /// PEM, DER, JWK or raw key bytes could not be decoded, or describe the wrong kind of key.
        case invalidKeyEncoding
        /// The key is too weak (RSA under 2048 bits) or on the wrong curve.
        case weakKey
        /// Authentication failed: GCM tag, OAEP padding, signature.
        case authenticationFailure
        /// The system random generator failed; no bytes were returned.
        case randomFailure
        /// OpenSSL refused an operation that should succeed on valid input.
        case backend
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "crypto error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
}
