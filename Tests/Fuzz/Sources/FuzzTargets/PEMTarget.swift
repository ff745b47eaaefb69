import Foundation
import MediaDRMCrypto
import MediaDRMTDF

/// PEM and DER keys, through every reader the system has: RSA and P-256 (signing and key
/// agreement), public and private, and the KAS key readers that pick between them. A key that
/// reads must write a PEM that reads back to the same key.
enum PEMTarget {
    static let target = FuzzTarget("pem", "PEM/DER readers: RSA, P-256, KASPublicKey, KASPrivateKey") { input throws(FuzzViolation) in
        var read = 0
        if let text = String(validating: input, as: UTF8.self) {
            if let key = try? RSA.PublicKey(pemRepresentation: text) {
                read += 1
                guard let again = try? RSA.PublicKey(pemRepresentation: key.pemRepresentation),
                      again.derRepresentation == key.derRepresentation else {
                    throw FuzzViolation("pem", "an RSA public key does not round-trip through PEM")
                }
            }
            if (try? RSA.PrivateKey(pemRepresentation: text)) != nil { read += 1 }
            if let key = try? ECP256.Signing.PublicKey(pemRepresentation: text) {
                read += 1
                guard let again = try? ECP256.Signing.PublicKey(pemRepresentation: key.pemRepresentation),
                      again.derRepresentation == key.derRepresentation else {
                    throw FuzzViolation("pem", "a P-256 public key does not round-trip through PEM")
                }
            }
            if (try? ECP256.Signing.PrivateKey(pemRepresentation: text)) != nil { read += 1 }
            if (try? ECP256.KeyAgreement.PublicKey(pemRepresentation: text)) != nil { read += 1 }
            if (try? ECP256.KeyAgreement.PrivateKey(pemRepresentation: text)) != nil { read += 1 }
            if (try? KASPublicKey(pemRepresentation: text)) != nil { read += 1 }
            if (try? KASPrivateKey(pemRepresentation: text)) != nil { read += 1 }
        }
        if (try? RSA.PublicKey(derRepresentation: input)) != nil { read += 1 }
        if (try? RSA.PrivateKey(derRepresentation: input)) != nil { read += 1 }
        if (try? ECP256.Signing.PublicKey(derRepresentation: input)) != nil { read += 1 }
        if (try? ECP256.Signing.PrivateKey(derRepresentation: input)) != nil { read += 1 }
        if (try? ECP256.KeyAgreement.PublicKey(x963Representation: input)) != nil { read += 1 }
        if (try? ECP256.KeyAgreement.PublicKey(derRepresentation: input)) != nil { read += 1 }
        return read > 0 ? .accepted : .refused
    }
}
