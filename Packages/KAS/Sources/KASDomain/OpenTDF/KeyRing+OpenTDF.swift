import Foundation
import MediaDRMTDF

extension KeyRingKey {
    var kasPrivateKey: KASPrivateKey {
        switch privateKey {
        case .rsa(let key): .rsa(key)
        case .ec(let key): .ec(key)
        }
    }
}

extension KeyRing: OpenTDFKeyProvider {
    package func publicKey(algorithm: KeyAlgorithm, kid: String?) -> OpenTDFPublicKey? {
        let key: KeyRingKey?
        if let kid {
            key = self.key(kid: kid).flatMap { $0.algorithm == algorithm ? $0 : nil }
        } else {
            key = active(algorithm)
        }
        return key.map { OpenTDFPublicKey(algorithm: algorithm, kid: $0.kid, pem: $0.publicKeyPEM) }
    }

    public func privateKeys(algorithm: KeyAlgorithm, kid: String?) -> [KASPrivateKey] {
        candidates(kid: kid, algorithm: algorithm).map(\.kasPrivateKey)
    }
}

/// The holder answers from its current snapshot, so a rotation picked up by `reload()` applies
/// to the next request.
extension KeyRingHolder: OpenTDFKeyProvider {
    package func publicKey(algorithm: KeyAlgorithm, kid: String?) -> OpenTDFPublicKey? {
        current.publicKey(algorithm: algorithm, kid: kid)
    }

    public func privateKeys(algorithm: KeyAlgorithm, kid: String?) -> [KASPrivateKey] {
        current.privateKeys(algorithm: algorithm, kid: kid)
    }
}
