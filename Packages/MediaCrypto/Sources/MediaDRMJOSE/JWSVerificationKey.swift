import Foundation
import MediaDRMCrypto

/// A key that verifies JWS signatures, bound to exactly one algorithm: an RSA key verifies only
/// RS256, a P-256 key only ES256, a shared secret only HS256. The binding is what stops
/// algorithm confusion: a token cannot choose how its key is used.
public struct JWSVerificationKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case hmac(SecretKey)
        case rsa(RSA.PublicKey)
        case p256(ECP256.Signing.PublicKey)
    }

    let material: Material
    /// Matched against the token's `kid`. A key without an id is a candidate for any token
    /// whose `kid` names no configured key (a PEM-configured issuer key has no id).
    public let keyID: String?

    /// An HS256 key; at least 32 bytes, and not a PEM/SSH public key in disguise.
    public init(hmac key: SecretKey, keyID: String? = nil) throws(JOSEError) {
        try HMACKeyPolicy.check(key)
        self.init(checkedHMAC: key, keyID: keyID)
    }

    init(checkedHMAC key: SecretKey, keyID: String?) {
        self.material = .hmac(key)
        self.keyID = keyID
    }

    /// An RS256 key.
    public init(rsa key: RSA.PublicKey, keyID: String? = nil) {
        self.material = .rsa(key)
        self.keyID = keyID
    }

    /// An ES256 key.
    public init(p256 key: ECP256.Signing.PublicKey, keyID: String? = nil) {
        self.material = .p256(key)
        self.keyID = keyID
    }

    /// An RSA (SPKI or PKCS#1) or P-256 (SPKI) public key in PEM.
    public init(pemRepresentation pem: String, keyID: String? = nil) throws(JOSEError) {
        if let key = try? RSA.PublicKey(pemRepresentation: pem) {
            self.init(rsa: key, keyID: keyID)
        } else if let key = try? ECP256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(p256: key, keyID: keyID)
        } else {
            throw JOSEError(.invalidKey, "PEM is not an RSA (2048+ bits) or P-256 public key")
        }
    }

    /// The key a JWK describes; see `JWK.verificationKey()` for the rules.
    public init(jwk: JWK) throws(JOSEError) {
        self = try jwk.verificationKey()
    }

    /// The one algorithm this key verifies.
    public var algorithm: JWSAlgorithm {
        switch material {
        case .hmac: .hs256
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// The public JWK of an RSA or P-256 key (with `kid`, `alg` and `use: sig`); nil for a
    /// shared secret, which is never exported.
    public var jwk: JWK? {
        switch material {
        case .hmac: nil
        case .rsa(let key): JWK(publicKey: key, keyID: keyID)
        case .p256(let key): JWK(publicKey: key, keyID: keyID)
        }
    }

    /// Verifies `signature` (already base64url-decoded) over the JWS signing input. Lengths are
    /// checked exactly: an ES256 signature is 64 bytes (a DER signature is refused), an RS256
    /// signature is as long as the modulus, an HS256 MAC is 32 bytes.
    func isValidSignature(_ signature: Data, for signingInput: [UInt8]) -> Bool {
        switch material {
        case .hmac(let key):
            guard signature.count == SHA256Digest.byteCount else { return false }
            return HMACSHA256.isValid(signature, for: signingInput, key: key)
        case .rsa(let key):
            guard signature.count == (key.keySizeInBits + 7) / 8 else { return false }
            return key.isValidSignature(signature, for: signingInput)
        case .p256(let key):
            guard signature.count == 64,
                  let ecdsa = try? ECP256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(ecdsa, for: signingInput)
        }
    }

    public var description: String {
        "JWSVerificationKey(\(algorithm.rawValue)\(keyID.map { ", kid: \($0)" } ?? ""))"
    }
}
