import Foundation
import MediaDRMCrypto

/// One key-access key of the ring: its index entry and its private key.
package struct KeyRingKey: Sendable, CustomStringConvertible {
    public enum PrivateKey: Sendable {
        case rsa(RSA.PrivateKey)
        case ec(ECP256.KeyAgreement.PrivateKey)
    }

    public let entry: KeyRingEntry
    public let privateKey: PrivateKey

    public var kid: String { entry.kid }
    public var algorithm: KeyAlgorithm { entry.algorithm }

    /// The public key as SPKI PEM, what OpenTDF's public-key route serves.
    public var publicKeyPEM: String {
        switch privateKey {
        case .rsa(let key): key.publicKey.pemRepresentation
        case .ec(let key): key.publicKey.pemRepresentation
        }
    }

    public var rsaPrivateKey: RSA.PrivateKey? {
        if case .rsa(let key) = privateKey { return key }
        return nil
    }

    public var ecPrivateKey: ECP256.KeyAgreement.PrivateKey? {
        if case .ec(let key) = privateKey { return key }
        return nil
    }

    public var description: String {
        "KeyRingKey(\(kid), \(algorithm.rawValue)\(entry.isActive ? ", active" : ", retired"))"
    }

    /// Reads a private key file's PEM as the algorithm the index names.
    init(entry: KeyRingEntry, pem: String, file: String) throws(KeyRingError) {
        self.entry = entry
        let mismatch = KeyRingError(.corruptKey, "key file '\(file)' is not a valid \(entry.algorithm.rawValue) private key")
        switch entry.algorithm {
        case .rsa2048:
            guard let key = try? RSA.PrivateKey(pemRepresentation: pem) else { throw mismatch }
            privateKey = .rsa(key)
        case .ecSecp256r1:
            guard let key = try? ECP256.KeyAgreement.PrivateKey(pemRepresentation: pem) else { throw mismatch }
            privateKey = .ec(key)
        }
    }

    /// A fresh key of `algorithm`.
    init(generating algorithm: KeyAlgorithm, entry: KeyRingEntry) throws(KeyRingError) {
        self.entry = entry
        do {
            switch algorithm {
            case .rsa2048: privateKey = .rsa(try RSA.PrivateKey(keySize: 2048))
            case .ecSecp256r1: privateKey = .ec(try ECP256.KeyAgreement.PrivateKey())
            }
        } catch {
            throw KeyRingError(.crypto, "cannot generate a \(algorithm.rawValue) key (\(error.code.rawValue))")
        }
    }

    var privateKeyPEM: String {
        switch privateKey {
        case .rsa(let key): key.pemRepresentation
        case .ec(let key): key.pemRepresentation
        }
    }
}
