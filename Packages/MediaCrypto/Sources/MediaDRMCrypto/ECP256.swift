import Foundation

/// NIST P-256 (prime256v1, secp256r1): ECDH for key agreement, ECDSA with SHA-256 (JWS ES256)
/// for signing. Keys on any other curve are refused with `.weakKey`; every public point is
/// checked to lie on the curve.
public enum ECP256 {
    /// ECDH keys (the ephemeral keys of `ec-wrapped` key access and EC rewrap).
    public enum KeyAgreement {}
    /// ECDSA keys (JWS ES256).
    public enum Signing {}

    /// Bytes in a scalar or a coordinate.
    static let coordinateByteCount = 32
}
