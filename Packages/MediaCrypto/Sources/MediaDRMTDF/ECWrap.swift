import MediaDRMCrypto
import Foundation

/// The EC key wrap of OpenTDF `ec-wrapped` key access, also used by the KAS to rewrap a key to
/// an EC client: P-256 ECDH between a fresh ephemeral key and the recipient's key, HKDF-SHA256
/// (salt = SHA-256("TDF"), empty info) to a 32-byte key, AES-256-GCM of the key being wrapped,
/// stored as `nonce ‖ ciphertext ‖ tag`. The ephemeral public key travels beside it (as PEM).
public enum ECWrap {
    /// The result of a wrap: what goes into `wrappedKey` (after base64) and `ephemeralPublicKey`.
    public struct WrappedKey: Sendable {
        /// `nonce ‖ ciphertext ‖ tag`.
        public let wrappedKey: Data
        public let ephemeralPublicKey: ECP256.KeyAgreement.PublicKey
    }

    /// SHA-256 of the ASCII bytes "TDF".
    public static var salt: Data { SHA256Digest.hash(data: Data("TDF".utf8)) }

    /// Wraps `key` to `recipient` under a fresh ephemeral key.
    public static func wrap(_ key: SecretKey, to recipient: ECP256.KeyAgreement.PublicKey) throws(TDFError) -> WrappedKey {
        let ephemeral: ECP256.KeyAgreement.PrivateKey
        do {
            ephemeral = try ECP256.KeyAgreement.PrivateKey()
        } catch {
            throw TDFError(.cryptoFailure, "could not generate an ephemeral P-256 key")
        }
        let sealed = try seal(key, sender: ephemeral, recipient: recipient)
        return WrappedKey(wrappedKey: sealed, ephemeralPublicKey: ephemeral.publicKey)
    }

    /// Unwraps a key wrapped to `privateKey`'s public key by the holder of `ephemeralPublicKey`.
    public static func unwrap(_ wrappedKey: some DataProtocol, ephemeralPublicKey: ECP256.KeyAgreement.PublicKey,
                              with privateKey: ECP256.KeyAgreement.PrivateKey) throws(TDFError) -> SecretKey {
        let sessionKey = try derive(privateKey: privateKey, peer: ephemeralPublicKey)
        do {
            let box = try AESCipher.GCM.SealedBox(combined: wrappedKey)
            return SecretKey(data: try AESCipher.GCM.open(box, using: sessionKey))
        } catch {
            throw TDFError(.keyUnwrapFailure, "the EC-wrapped key does not open with this private key")
        }
    }

    /// Seals `key` under the ECDH/HKDF key of `sender` and `recipient` (the sender's private
    /// key is normally ephemeral; the KAS passes its own when rewrapping).
    public static func seal(_ key: SecretKey, sender: ECP256.KeyAgreement.PrivateKey,
                            recipient: ECP256.KeyAgreement.PublicKey) throws(TDFError) -> Data {
        let sessionKey = try derive(privateKey: sender, peer: recipient)
        let plaintext = key.withUnsafeBytes { Data($0) }
        do {
            return try AESCipher.GCM.seal(plaintext, using: sessionKey).combined
        } catch {
            throw TDFError(.cryptoFailure, "AES-256-GCM seal of the wrapped key failed")
        }
    }

    /// The 32-byte AES key both sides derive.
    static func derive(privateKey: ECP256.KeyAgreement.PrivateKey, peer: ECP256.KeyAgreement.PublicKey) throws(TDFError) -> SecretKey {
        do {
            let secret = try privateKey.sharedSecretFromKeyAgreement(with: peer)
            return try secret.hkdfDerivedSymmetricKey(salt: salt, sharedInfo: Data(), outputByteCount: 32)
        } catch {
            throw TDFError(.keyUnwrapFailure, "P-256 key agreement failed")
        }
    }
}
