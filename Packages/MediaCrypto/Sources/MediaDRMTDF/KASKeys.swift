import MediaDRMCrypto
import Foundation

/// A KAS public key a writer wraps the payload key to: RSA gives `wrapped`, P-256 gives
/// `ec-wrapped` key access.
public enum KASPublicKey: Sendable {
    case rsa(RSA.PublicKey)
    case ec(ECP256.KeyAgreement.PublicKey)

    /// Reads an SPKI PEM (or PKCS#1 RSA PEM) and decides the kind from the key itself.
    public init(pemRepresentation pem: String) throws(TDFError) {
        if let key = try? RSA.PublicKey(pemRepresentation: pem) {
            self = .rsa(key)
        } else if let key = try? ECP256.KeyAgreement.PublicKey(pemRepresentation: pem) {
            self = .ec(key)
        } else {
            throw TDFError(.invalidArgument, "the KAS public key is neither an RSA (2048+) nor a P-256 PEM key")
        }
    }
}

/// The KAS private key, for the offline key holder's decrypt path and for the KAS itself.
public enum KASPrivateKey: Sendable {
    case rsa(RSA.PrivateKey)
    case ec(ECP256.KeyAgreement.PrivateKey)

    /// Reads a PKCS#8 PEM, or a PKCS#1 RSA / SEC1 EC PEM.
    public init(pemRepresentation pem: String) throws(TDFError) {
        if let key = try? RSA.PrivateKey(pemRepresentation: pem) {
            self = .rsa(key)
        } else if let key = try? ECP256.KeyAgreement.PrivateKey(pemRepresentation: pem) {
            self = .ec(key)
        } else {
            throw TDFError(.invalidArgument, "the KAS private key is neither an RSA (2048+) nor a P-256 PEM key")
        }
    }
}
