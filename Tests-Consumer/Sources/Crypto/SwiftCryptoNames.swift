// Stand-ins for swift-crypto's (and CryptoKit's) top-level names, in the shapes those modules
// give them: names and sizes only, nothing here hashes or encrypts. ConsumerCheck uses them
// unqualified beside MediaDRMCrypto, so MediaDRMCrypto declaring any of them again breaks the
// consumer build (docs/architecture.md).

public protocol HashFunction {
    static var byteCount: Int { get }
}

public enum SHA256: HashFunction {
    public static let byteCount = 32
}

public struct SymmetricKeySize: Sendable, Equatable {
    public let bitCount: Int
    public init(bitCount: Int) { self.bitCount = bitCount }
    public static let bits128 = SymmetricKeySize(bitCount: 128)
    public static let bits256 = SymmetricKeySize(bitCount: 256)
}

public struct SymmetricKey: Sendable {
    public let bitCount: Int
    public init(size: SymmetricKeySize) { bitCount = size.bitCount }
}

public struct HMAC<H: HashFunction> {
    public static var byteCount: Int { H.byteCount }
}

public struct HKDF<H: HashFunction> {
    /// RFC 5869: at most 255 blocks of the hash's output.
    public static var maximumOutputByteCount: Int { 255 * H.byteCount }
}

public enum AES {
    public enum GCM {
        public static let nonceByteCount = 12
    }
}

public enum P256 {
    public enum KeyAgreement {}
    public enum Signing {
        public static let signatureByteCount = 64
    }
}
