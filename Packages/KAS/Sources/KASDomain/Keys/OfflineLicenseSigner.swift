import Foundation
import MediaDRMCrypto
import MediaDRMJOSE

/// One offline-licence signing key of the ring (docs/offline.md): a dedicated ES256 (P-256) key,
/// never a key-access key and never the dev token issuer's, so no licence can pass for a token and
/// no ECDH key ever signs. Kids are `l1`, `l2`, ...; one is active (it signs), the retired ones
/// stay in the ring so that the licences they signed keep verifying until they expire.
package struct OfflineLicenseSigner: Sendable, CustomStringConvertible {
    /// The kid prefix of licence-signing keys.
    static let kidPrefix = "l"
    /// The name `kas keys` shows and takes for these keys.
    public static let algorithmName = "offline-license"

    public let kid: String
    public let created: Date
    /// When a newer key took over signing; nil for the active key.
    public let retired: Date?
    let privateKey: ECP256.Signing.PrivateKey

    init(kid: String, created: Date, retired: Date?, privateKey: ECP256.Signing.PrivateKey) {
        self.kid = kid
        self.created = created
        self.retired = retired
        self.privateKey = privateKey
    }

    public var isActive: Bool { retired == nil }
    public var signingKey: JWSSigningKey { JWSSigningKey(p256: privateKey, keyID: kid) }
    /// The published JWK: `kty: EC`, `crv: P-256`, `kid`, `alg: ES256`, `use: sig`.
    public var publicJWK: JWK { JWK(publicKey: privateKey.publicKey, keyID: kid) }

    public var description: String { "OfflineLicenseSigner(\(kid)\(isActive ? ", active" : ", retired"))" }
}
