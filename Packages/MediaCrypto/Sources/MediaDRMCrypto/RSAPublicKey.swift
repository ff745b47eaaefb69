import Foundation

extension RSA {
    public struct PublicKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        init(backing: OpenSSLKey) { self.backing = backing }

        /// SPKI "PUBLIC KEY" or PKCS#1 "RSA PUBLIC KEY".
        public init(pemRepresentation: String) throws(CryptoError) {
            let block = try PEM.decode(pemRepresentation, labels: ["PUBLIC KEY", "RSA PUBLIC KEY"])
            let format: RSABackend.PublicFormat = block.label == "PUBLIC KEY" ? .spki : .pkcs1
            backing = try RSABackend.importPublic(der: block.der, format: format)
        }

        /// SPKI DER.
        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try RSABackend.importPublic(der: Array(derRepresentation), format: .spki)
        }

        /// Big-endian modulus and exponent, as in a JWK's `n` and `e`. Leading zero bytes are
        /// ignored; the modulus must be odd and 2048...16384 bits, the exponent odd, at least 3
        /// and at most 256 bits.
        public init(modulus: some DataProtocol, publicExponent: some DataProtocol) throws(CryptoError) {
            backing = try RSABackend.importComponents(modulus: Array(modulus), exponent: Array(publicExponent))
        }

        /// SPKI PEM ("PUBLIC KEY").
        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PUBLIC KEY") }

        /// SPKI DER.
        public var derRepresentation: Data { Data(RSABackend.exportPublicSPKI(backing)) }

        /// Big-endian, no leading zeros (JWK `n`).
        public var modulus: Data { Data(backing.unsignedParameter("n") ?? []) }

        /// Big-endian, no leading zeros (JWK `e`).
        public var publicExponent: Data { Data(backing.unsignedParameter("e") ?? []) }

        public var keySizeInBits: Int { backing.bits }

        /// OAEP encryption. The plaintext may be at most k - 2·hLen - 2 bytes (214 for a
        /// 2048-bit key with SHA-1, 190 with SHA-256).
        public func encrypt(_ plaintext: some DataProtocol, padding: Padding) throws(CryptoError) -> Data {
            try RSABackend.encrypt(backing, plaintext: Array(plaintext), padding: padding)
        }

        /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256). The signature must be exactly the
        /// modulus length.
        public func isValidSignature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
            let bytes = Array(signature)
            guard bytes.count == (keySizeInBits + 7) / 8 else { return false }
            return backing.verifySHA256(signature: bytes, message: Array(message))
        }

        public var description: String { "RSA.PublicKey(\(keySizeInBits) bits)" }
        public var debugDescription: String { description }
    }
}
