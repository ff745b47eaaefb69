/// The key-access algorithms of the ring, named as OpenTDF names them in its public-key route
/// (`algorithm=rsa:2048`, `algorithm=ec:secp256r1`).
public enum KeyAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RSA, 2048 bits or more (generated at 2048), for `wrapped` keys: OAEP with SHA-1.
    case rsa2048 = "rsa:2048"
    /// P-256, for `ec-wrapped` keys: ECDH + HKDF-SHA256 + AES-256-GCM.
    case ecSecp256r1 = "ec:secp256r1"

    /// The kid prefix: RSA kids are `r1`, `r2`, ...; EC kids `e1`, `e2`, ...
    var kidPrefix: String {
        switch self {
        case .rsa2048: "r"
        case .ecSecp256r1: "e"
        }
    }

    public var description: String { rawValue }
}
