import Foundation

extension RSA {
    public struct PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        init(backing: OpenSSLKey) { self.backing = backing }

        /// A fresh key with public exponent 65537. `bits` must be 2048...16384 and a multiple of 8.
        public init(keySize bits: Int = 2048) throws(CryptoError) {
            guard bits >= RSA.minimumKeySizeInBits else {
                throw CryptoError(.weakKey, "RSA keys under \(RSA.minimumKeySizeInBits) bits are refused")
            }
            guard bits <= RSA.maximumKeySizeInBits, bits % 8 == 0 else {
                throw CryptoError(.invalidSize, "RSA key size must be a multiple of 8 up to \(RSA.maximumKeySizeInBits) bits")
            }
            backing = try RSABackend.generate(bits: bits)
        }

        /// PKCS#8 "PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY".
        public init(pemRepresentation: String) throws(CryptoError) {
            let block = try PEM.decode(pemRepresentation, labels: ["PRIVATE KEY", "RSA PRIVATE KEY"])
            let format: RSABackend.PrivateFormat = block.label == "PRIVATE KEY" ? .pkcs8 : .pkcs1
            backing = try RSABackend.importPrivate(der: block.der, formats: [format])
        }

        /// PKCS#8 or PKCS#1 DER.
        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try RSABackend.importPrivate(der: Array(derRepresentation), formats: [.pkcs8, .pkcs1])
        }

        /// PKCS#8 PEM ("PRIVATE KEY").
        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PRIVATE KEY") }

        /// PKCS#8 DER. Empty only if OpenSSL cannot encode a key it holds, which does not happen.
        public var derRepresentation: Data { Data(RSABackend.exportPrivatePKCS8(backing)) }

        public var publicKey: PublicKey { PublicKey(backing: backing) }

        public var keySizeInBits: Int { backing.bits }

        /// OAEP decryption. Any padding or size failure is `.authenticationFailure`, with one
        /// fixed reason, so a caller cannot learn why a ciphertext was refused.
        public func decrypt(_ ciphertext: some DataProtocol, padding: Padding) throws(CryptoError) -> Data {
            try RSABackend.decrypt(backing, ciphertext: Array(ciphertext), padding: padding)
        }

        /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256).
        public func signature(for message: some DataProtocol) throws(CryptoError) -> Data {
            guard let signature = backing.signSHA256(Array(message)) else {
                throw CryptoError(.backend, "RSA signing failed")
            }
            return Data(signature)
        }

        public var description: String { "RSA.PrivateKey(\(keySizeInBits) bits)" }
        public var debugDescription: String { description }
    }
}
