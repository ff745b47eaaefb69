import Foundation

extension ECP256.Signing {
    /// An ECDSA signature (r, s), kept as r ‖ s (each 32 bytes, big-endian), the JWS ES256 form.
    public struct ECDSASignature: Sendable, Equatable {
        let rawBytes: [UInt8]

        /// r ‖ s, exactly 64 bytes.
        public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
            let bytes = Array(rawRepresentation)
            guard bytes.count == 2 * ECP256.coordinateByteCount else {
                throw CryptoError(.invalidSize, "an ECDSA P-256 raw signature is 64 bytes")
            }
            rawBytes = bytes
        }

        /// The DER `SEQUENCE { r INTEGER, s INTEGER }` of X9.62 / RFC 3279. Strict DER only;
        /// r and s must be positive and fit in 32 bytes.
        public init(derRepresentation: some DataProtocol) throws(CryptoError) {
            rawBytes = try P256Backend.rawSignature(fromDER: Array(derRepresentation))
        }

        public var rawRepresentation: Data { Data(rawBytes) }

        /// Empty only if OpenSSL cannot encode two 32-byte integers, which does not happen.
        public var derRepresentation: Data { Data(P256Backend.derSignature(fromRaw: rawBytes) ?? []) }
    }
}
