/// Every failure of the key ring, compared by code. Reasons name the file, kid or field at fault
/// and never contain key material.
public struct KeyRingError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The data directory has no key ring yet (`kas keys generate` makes one).
        case notInitialized
        /// The index file is not the documented JSON shape.
        case corruptIndex
        /// A private key file is missing, unreadable as PEM, or not the key the index says.
        case corruptKey
        /// A private key file or the key directory can be read by group or others.
        case insecurePermissions
        /// No key has this kid, or no key of the algorithm exists.
        case unknownKey
        /// The operation is not allowed on this key (removing an active key).
        case keyInUse
        /// The file system refused a read, write, rename or lock.
        case io
        /// Key generation or unwrapping failed in the crypto layer.
        case crypto
        /// No key of the ring unwraps the wrapped key.
        case unwrapFailed
        /// The ring is sealed and no key-encryption key was given (docs/kas.md "Sealed key ring").
        case sealKeyMissing
        /// The key-encryption key source is unusable: not 32 bytes, not base64, unreadable.
        case sealKeyInvalid
        /// The key-encryption key does not open the ring, or a sealed key file was modified.
        case sealMismatch
        /// Some key files are sealed and others not: an interrupted `kas keys seal` or `unseal`.
        case partlySealed
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "key ring error (\(code.rawValue)): \(reason)" }

    public static func == (lhs: KeyRingError, rhs: KeyRingError) -> Bool { lhs.code == rhs.code }
}
