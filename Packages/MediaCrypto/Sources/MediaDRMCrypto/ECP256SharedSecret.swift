import Foundation

extension ECP256 {
    /// The 32-byte x-coordinate of an ECDH result. Its bytes are not printed; turn it into a
    /// key with HKDF rather than using it directly.
    public struct SharedSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        private let bytes: [UInt8]

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// HKDF-SHA256 (RFC 5869) with the secret as input key material.
        public func hkdfDerivedSymmetricKey(salt: some DataProtocol, sharedInfo: some DataProtocol,
                                            outputByteCount: Int) throws(CryptoError) -> SecretKey {
            try HKDFSHA256.deriveKey(inputKeyMaterial: SecretKey(data: bytes), salt: salt, info: sharedInfo,
                                     outputByteCount: outputByteCount)
        }

        /// The raw secret, for interoperability checks and other KDFs.
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }

        /// Constant-time equality.
        public static func == (lhs: SharedSecret, rhs: SharedSecret) -> Bool {
            ConstantTime.equals(lhs.bytes, rhs.bytes)
        }

        public var description: String { "ECP256.SharedSecret(32 bytes)" }
        public var debugDescription: String { description }
    }
}
