import Foundation
import MediaDRMCrypto

/// A key that signs JWS/JWT: an HS256 shared secret, an RSA private key (RS256) or a P-256
/// private key (ES256), with an optional key id written into the `kid` header.
public struct JWSSigningKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case hmac(SecretKey)
        case rsa(RSA.PrivateKey)
        case p256(ECP256.Signing.PrivateKey)
    }

    let material: Material
    /// Written as the `kid` header of every token this key signs.
    public let keyID: String?

    /// An HS256 key; at least 32 bytes, and not a PEM/SSH public key in disguise.
    public init(hmac key: SecretKey, keyID: String? = nil) throws(JOSEError) {
        try HMACKeyPolicy.check(key)
        self.material = .hmac(key)
        self.keyID = keyID
    }

    /// An RS256 key (the Crypto module refuses RSA keys under 2048 bits).
    public init(rsa key: RSA.PrivateKey, keyID: String? = nil) {
        self.material = .rsa(key)
        self.keyID = keyID
    }

    /// An ES256 key.
    public init(p256 key: ECP256.Signing.PrivateKey, keyID: String? = nil) {
        self.material = .p256(key)
        self.keyID = keyID
    }

    /// An RSA (PKCS#8 or PKCS#1) or P-256 (PKCS#8 or SEC1) private key in PEM.
    public init(pemRepresentation pem: String, keyID: String? = nil) throws(JOSEError) {
        if let key = try? RSA.PrivateKey(pemRepresentation: pem) {
            self.init(rsa: key, keyID: keyID)
        } else if let key = try? ECP256.Signing.PrivateKey(pemRepresentation: pem) {
            self.init(p256: key, keyID: keyID)
        } else {
            throw JOSEError(.invalidKey, "PEM is not an RSA (2048+ bits) or P-256 private key")
        }
    }

    /// The algorithm this key signs with; the only one written into its tokens.
    public var algorithm: JWSAlgorithm {
        switch material {
        case .hmac: .hs256
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// The key that verifies this key's signatures, with the same key id and algorithm.
    public var verificationKey: JWSVerificationKey {
        switch material {
        case .hmac(let key): JWSVerificationKey(checkedHMAC: key, keyID: keyID)
        case .rsa(let key): JWSVerificationKey(rsa: key.publicKey, keyID: keyID)
        case .p256(let key): JWSVerificationKey(p256: key.publicKey, keyID: keyID)
        }
    }

    /// The signature over the JWS signing input, in its JWS form (ES256: raw `r ‖ s`).
    func signature(for signingInput: [UInt8]) throws(JOSEError) -> Data {
        switch material {
        case .hmac(let key):
            return HMACSHA256.authenticationCode(signingInput, key: key)
        case .rsa(let key):
            do {
                return try key.signature(for: signingInput)
            } catch {
                throw JOSEError(.invalidKey, "RSA signing failed")
            }
        case .p256(let key):
            do {
                return try key.signature(for: signingInput).rawRepresentation
            } catch {
                throw JOSEError(.invalidKey, "ECDSA signing failed")
            }
        }
    }

    public var description: String {
        "JWSSigningKey(\(algorithm.rawValue)\(keyID.map { ", kid: \($0)" } ?? ""))"
    }
}
