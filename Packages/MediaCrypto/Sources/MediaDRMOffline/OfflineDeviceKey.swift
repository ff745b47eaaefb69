import Foundation
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJOSE
import MediaDRMJSON

/// A device's P-256 public key, as an offline licence request sends it (`devicePublicKey`: an SPKI
/// PEM string or a P-256 JWK object), and its RFC 7638 thumbprint, the licence's `cnf.jkt`
/// (the RFC 7800 confirmation member as RFC 9449 §6.1 writes it: base64url of the SHA-256
/// thumbprint).
public struct OfflineDeviceKey: Sendable, Equatable {
    public let publicKey: ECP256.KeyAgreement.PublicKey
    /// base64url of the RFC 7638 SHA-256 thumbprint of the key's JWK.
    public let thumbprint: String

    public init(_ publicKey: ECP256.KeyAgreement.PublicKey) throws(OfflineLicenseError) {
        // The same point as a signing key: RFC 7638 covers only kty, crv, x and y.
        guard let point = try? ECP256.Signing.PublicKey(rawRepresentation: publicKey.rawRepresentation) else {
            throw OfflineLicenseError(.invalidDeviceKey, "devicePublicKey is not a P-256 point")
        }
        self.publicKey = publicKey
        self.thumbprint = Base64URL.encode(JWK(publicKey: point).thumbprint)
    }

    /// Reads `devicePublicKey`: a PEM string or a JWK object (`kty: EC`, `crv: P-256`).
    public init(json: JSONValue) throws(OfflineLicenseError) {
        let invalid = OfflineLicenseError(.invalidDeviceKey, "devicePublicKey must be a P-256 public key as PEM or JWK")
        let key: ECP256.KeyAgreement.PublicKey
        switch json {
        case .string(let pem):
            guard let parsed = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) else { throw invalid }
            key = parsed
        case .object(let object):
            guard let jwk = try? JWK(jsonObject: object), let point = jwk.p256PublicKey,
                  let parsed = try? ECP256.KeyAgreement.PublicKey(rawRepresentation: point.rawRepresentation)
            else { throw invalid }
            key = parsed
        default:
            throw invalid
        }
        try self.init(key)
    }

    /// The SPKI PEM, the form requests are written with.
    public var jsonValue: JSONValue { .string(publicKey.pemRepresentation) }
}
