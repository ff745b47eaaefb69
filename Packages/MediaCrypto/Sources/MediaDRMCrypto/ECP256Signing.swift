import Foundation

extension ECP256.Signing {
    public struct PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        /// A fresh random key.
        public init() throws(CryptoError) { backing = try P256Backend.generate() }

        /// PKCS#8 "PRIVATE KEY" or SEC1 "EC PRIVATE KEY" (optionally preceded by the P-256
        /// "EC PARAMETERS" block).
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

        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PRIVATE KEY") }
        public var derRepresentation: Data { Data(P256Backend.exportPrivatePKCS8(backing)) }
        public var rawRepresentation: Data { Data(P256Backend.rawPrivate(backing)) }

        public var publicKey: PublicKey { PublicKey(backing: backing) }

        /// ECDSA over SHA-256(message) with a random nonce (JWS ES256).
        public func signature(for message: some DataProtocol) throws(CryptoError) -> ECP256.Signing.ECDSASignature {
            guard let der = backing.signSHA256(Array(message)) else {
                throw CryptoError(.backend, "ECDSA signing failed")
            }
            return try ECP256.Signing.ECDSASignature(derRepresentation: der)
        }

        public var description: String { "ECP256.Signing.PrivateKey" }
        public var debugDescription: String { description }
    }

    public struct PublicKey: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        let backing: OpenSSLKey

        init(backing: OpenSSLKey) { self.backing = backing }

        public init(pemRepresentation: String) throws(CryptoError) {
            backing = try P256Backend.importPublicPEM(pemRepresentation)
        }

        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPublic(der: Array(derRepresentation))
        }

        public init(x963Representation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(x963Representation), form: .x963)
        }

        public init(compressedRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(compressedRepresentation), form: .compressed)
        }

        public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
            backing = try P256Backend.importPoint(Array(rawRepresentation), form: .raw)
        }

        public var pemRepresentation: String { PEM.encode(derRepresentation, label: "PUBLIC KEY") }
        public var derRepresentation: Data { Data(P256Backend.exportPublicSPKI(backing)) }
        public var x963Representation: Data { Data(P256Backend.x963(backing)) }
        public var compressedRepresentation: Data { Data(P256Backend.compressed(backing)) }
        public var rawRepresentation: Data { Data(P256Backend.x963(backing).dropFirst()) }

        /// ECDSA-SHA256 verification.
        public func isValidSignature(_ signature: ECP256.Signing.ECDSASignature, for message: some DataProtocol) -> Bool {
            guard let der = P256Backend.derSignature(fromRaw: signature.rawBytes) else { return false }
            return backing.verifySHA256(signature: der, message: Array(message))
        }

        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.x963Representation == rhs.x963Representation
        }

        public var description: String { "ECP256.Signing.PublicKey" }
        public var debugDescription: String { description }
    }
}
