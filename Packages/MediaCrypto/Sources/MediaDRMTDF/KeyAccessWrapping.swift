import MediaDRMCrypto
import MediaDRMEncoding
import Foundation

extension KeyAccessObject {
    /// Wraps `key` to the KAS key and binds it to `policyBase64` (binding in the form the
    /// OpenTDF Go SDK writes unless told otherwise).
    public static func wrapping(_ key: SecretKey, to kasPublicKey: KASPublicKey, kasURL: String, kid: String? = nil,
                                sid: String? = nil, policyBase64: String,
                                bindingForm: TDFBinding.Form = .hex) throws(TDFError) -> KeyAccessObject {
        let binding = PolicyBinding.object(
            alg: "HS256", hash: TDFBinding.policyBinding(policyBase64: policyBase64, key: key, form: bindingForm))
        switch kasPublicKey {
        case .rsa(let publicKey):
            let ciphertext: Data
            do {
                ciphertext = try publicKey.encrypt(key.withUnsafeBytes { Data($0) }, padding: .oaepSHA1)
            } catch {
                throw TDFError(.cryptoFailure, "RSA-OAEP wrap of the payload key failed")
            }
            return KeyAccessObject(type: .wrapped, url: kasURL, wrappedKey: Base64.encode(ciphertext),
                                   policyBinding: binding, kid: kid, sid: sid)
        case .ec(let publicKey):
            let wrapped = try ECWrap.wrap(key, to: publicKey)
            return KeyAccessObject(type: .ecWrapped, url: kasURL, wrappedKey: Base64.encode(wrapped.wrappedKey),
                                   policyBinding: binding, kid: kid, sid: sid,
                                   ephemeralPublicKey: wrapped.ephemeralPublicKey.pemRepresentation)
        }
    }

    /// Unwraps this object's key (or key split) with the KAS private key. Does not check the
    /// policy binding; call `isPolicyBindingValid` with the result.
    public func unwrap(with privateKey: KASPrivateKey) throws(TDFError) -> SecretKey {
        let wrapped: Data
        do {
            wrapped = try Base64.decode(wrappedKey)
        } catch {
            throw TDFError(.malformedManifest, "keyAccess.wrappedKey is not canonical base64")
        }
        switch (type, privateKey) {
        case (.wrapped, .rsa(let key)):
            do {
                return SecretKey(data: try key.decrypt(wrapped, padding: .oaepSHA1))
            } catch {
                throw TDFError(.keyUnwrapFailure, "the wrapped key does not decrypt with this RSA private key")
            }
        case (.ecWrapped, .ec(let key)):
            guard let pem = ephemeralPublicKey else {
                throw TDFError(.malformedManifest, "keyAccess.ephemeralPublicKey is missing for ec-wrapped")
            }
            let ephemeral: ECP256.KeyAgreement.PublicKey
            do {
                ephemeral = try ECP256.KeyAgreement.PublicKey(pemRepresentation: pem)
            } catch {
                throw TDFError(.malformedManifest, "keyAccess.ephemeralPublicKey is not a P-256 PEM public key")
            }
            return try ECWrap.unwrap(wrapped, ephemeralPublicKey: ephemeral, with: key)
        case (.wrapped, .ec), (.ecWrapped, .rsa):
            throw TDFError(.keyUnwrapFailure, "the key access type does not match the kind of private key")
        case (.other, _):
            throw TDFError(.unsupported, "key access type \(type.rawValue) is not supported")
        }
    }

    /// True when the policy binding verifies under `key` in either form (raw or hex).
    public func isPolicyBindingValid(policyBase64: String, key: SecretKey) -> Bool {
        guard policyBinding.alg == "HS256" else { return false }
        return TDFBinding.isValidPolicyBinding(policyBinding.hash, policyBase64: policyBase64, key: key)
    }
}
