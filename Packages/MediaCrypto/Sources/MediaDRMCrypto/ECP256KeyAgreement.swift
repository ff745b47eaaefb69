import Foundation

extension ECP256.KeyAgreement {
    public struct PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        /// A fresh random key.
        public init() throws(CryptoError) { backing = try P256Backend.generate() }

        /// PKCS#8 "PRIVATE KEY" or SEC1 "EC PRIVATE KEY" (optionally preceded by the P-256
        /// "EC PARAMETERS" block that `openssl ecparam -genkey` writes).
        public init(pemRepresentation: String) throws(CryptoError) {
            backing = try P256Backend.importPrivatePEM(pemRepresentation)
        }

        /// PKCS#8 or SEC1 DER.
        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPrivate(der: Array(derRepresentation), formats: [.pkcs8, .sec1])
        }

        /// The 32-byte big-endian scalar, 1 <= d < n.
        public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importRawPrivate(Array(rawRepresentation))
        }

        /// PKCS#8 PEM ("PRIVATE KEY").
        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PRIVATE KEY") }
        /// PKCS#8 DER.
        public var derRepresentation: Data { Data(P256Backend.exportPrivatePKCS8(backing)) }
        /// The 32-byte big-endian scalar.
        public var rawRepresentation: Data { Data(P256Backend.rawPrivate(backing)) }

        public var publicKey: PublicKey { PublicKey(backing: backing) }

        /// ECDH with a peer's public key.
        public func sharedSecretFromKeyAgreement(with peer: PublicKey) throws(CryptoError) -> ECP256.SharedSecret {
            ECP256.SharedSecret(bytes: try P256Backend.deriveSharedSecret(backing, peer: peer.backing))
        }

        public var description: String { "ECP256.KeyAgreement.PrivateKey" }
        public var debugDescription: String { description }
    }

    public struct PublicKey: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        init(backing: OpenSSLKey) { self.backing = backing }

        /// SPKI "PUBLIC KEY" on prime256v1.
        public init(pemRepresentation: String) throws(CryptoError) {
            backing = try P256Backend.importPublicPEM(pemRepresentation)
        }

        /// SPKI DER on prime256v1.
        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPublic(der: Array(derRepresentation))
        }

        /// 04 ‖ X ‖ Y (65 bytes).
        public init(x963Representation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(x963Representation), form: .x963)
        }

        /// 02/03 ‖ X (33 bytes).
        public init(compressedRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(compressedRepresentation), form: .compressed)
        }

        /// X ‖ Y (64 bytes), as in a JWK's `x` and `y`.
        public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(rawRepresentation), form: .raw)
        }

        /// SPKI PEM ("PUBLIC KEY"), uncompressed point.
        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PUBLIC KEY") }
        /// SPKI DER, uncompressed point.
        public var derRepresentation: Data { Data(P256Backend.exportPublicSPKI(backing)) }
        public var x963Representation: Data { Data(P256Backend.x963(backing)) }
        public var compressedRepresentation: Data { Data(P256Backend.compressed(backing)) }
        public var rawRepresentation: Data { Data(P256Backend.x963(backing).dropFirst()) }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.x963Representation == rhs.x963Representation
        }

        public var description: String { "ECP256.KeyAgreement.PublicKey" }
        public var debugDescription: String { description }
    }
}
