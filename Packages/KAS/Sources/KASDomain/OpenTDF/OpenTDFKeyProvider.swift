import MediaDRMCrypto
import Foundation
import MediaDRMTDF

extension KeyAlgorithm {
    /// Reads the `algorithm` of a public-key request: empty means RSA (the OpenTDF default).
    package init(requested text: String) throws(OpenTDFError) {
        switch text.lowercased() {
        case "", "rsa", "rsa:2048": self = .rsa2048
        case "ec", "ec:secp256r1", "ec:p-256", "ec:p256": self = .ecSecp256r1
        default: throw OpenTDFError(.malformedRequest, "algorithm must be rsa:2048 or ec:secp256r1")
        }
    }

    /// The algorithm a key access object of this type was wrapped with.
    public init?(keyAccessType type: KeyAccessObject.KeyType) {
        switch type {
        case .wrapped: self = .rsa2048
        case .ecWrapped: self = .ecSecp256r1
        case .other: return nil
        }
    }
}

/// A KAS public key as the public-key routes publish it.
package struct OpenTDFPublicKey: Sendable {
    public var algorithm: KeyAlgorithm
    public var kid: String
    /// SPKI PEM.
    public var pem: String

    public init(algorithm: KeyAlgorithm, kid: String, pem: String) {
        self.algorithm = algorithm
        self.kid = kid
        self.pem = pem
    }
}

/// What the OpenTDF routes need from the key ring.
package protocol OpenTDFKeyProvider: Sendable {
    /// The key with `kid` (which must be of `algorithm`), else the active key of `algorithm`.
    func publicKey(algorithm: KeyAlgorithm, kid: String?) -> OpenTDFPublicKey?
    /// The private keys to try for a key access object: with a kid, only that key; without,
    /// the active key of the algorithm first, then the others (retired keys keep unwrapping).
    func privateKeys(algorithm: KeyAlgorithm, kid: String?) -> [KASPrivateKey]
}

/// A fixed list of keys; the first of each algorithm is the active one. For tests and for
/// embedding the routes without a key ring.
package struct OpenTDFStaticKeyProvider: OpenTDFKeyProvider {
    public struct Entry: Sendable {
        public var kid: String
        public var key: KASPrivateKey
        public init(kid: String, key: KASPrivateKey) {
            self.kid = kid
            self.key = key
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries
    }

    public func publicKey(algorithm: KeyAlgorithm, kid: String?) -> OpenTDFPublicKey? {
        let candidates = entries.filter { Self.algorithm(of: $0.key) == algorithm }
        let chosen = kid.map { kid in candidates.first { $0.kid == kid } } ?? candidates.first
        guard let chosen else { return nil }
        return OpenTDFPublicKey(algorithm: algorithm, kid: chosen.kid, pem: Self.publicPEM(of: chosen.key))
    }

    public func privateKeys(algorithm: KeyAlgorithm, kid: String?) -> [KASPrivateKey] {
        let candidates = entries.filter { Self.algorithm(of: $0.key) == algorithm }
        if let kid { return candidates.filter { $0.kid == kid }.map(\.key) }
        return candidates.map(\.key)
    }

    static func algorithm(of key: KASPrivateKey) -> KeyAlgorithm {
        switch key {
        case .rsa: .rsa2048
        case .ec: .ecSecp256r1
        }
    }

    static func publicPEM(of key: KASPrivateKey) -> String {
        switch key {
        case .rsa(let key): key.publicKey.pemRepresentation
        case .ec(let key): key.publicKey.pemRepresentation
        }
    }
}
