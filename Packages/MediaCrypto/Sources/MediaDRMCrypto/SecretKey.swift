import Foundation

/// The size of a symmetric key.
public struct SecretKeySize: Sendable, Equatable {
    public let bitCount: Int
    public init(bitCount: Int) { self.bitCount = bitCount }
    public static let bits128 = SecretKeySize(bitCount: 128)
    public static let bits192 = SecretKeySize(bitCount: 192)
    public static let bits256 = SecretKeySize(bitCount: 256)
}

/// A symmetric key whose bytes are not printed, logged or compared in variable time.
/// Read the bytes only through `withUnsafeBytes` where an algorithm needs them.
public struct SecretKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    private let bytes: [UInt8]

    /// A fresh random key from the system generator.
    public init(size: SecretKeySize) throws(CryptoError) {
        guard size.bitCount > 0, size.bitCount % 8 == 0 else {
            throw CryptoError(.invalidSize, "key size must be a positive multiple of 8 bits")
        }
        self.bytes = try SecureRandom.bytes(count: size.bitCount / 8)
    }

    /// A key made from existing bytes (an unwrapped content key, a derived key).
    public init(data: some DataProtocol) {
        self.bytes = Array(data)
    }

    public var bitCount: Int { bytes.count * 8 }
    public var byteCount: Int { bytes.count }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// Constant-time equality.
    public static func == (lhs: SecretKey, rhs: SecretKey) -> Bool {
        ConstantTime.equals(lhs.bytes, rhs.bytes)
    }

    public var description: String { "SecretKey(\(bitCount) bits)" }
    public var debugDescription: String { description }
}
