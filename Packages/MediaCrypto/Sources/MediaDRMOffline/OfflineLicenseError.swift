/// Why an offline licence, its request or its answer was refused. Compared by `code`. `reason` is a fixed sentence
/// naming the member or check; it never contains a licence, a key, a token or a claim value.
public struct OfflineLicenseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Not the wire shape: JSON, members, types, encodings (docs/offline.md).
        case malformed
        /// The JWS does not verify with any published licence-signing key, names none of them,
        /// or is not an ES256 `mediadrm-offline-license+jwt`.
        case badSignature
        /// A device key that is not a P-256 public key (PEM or JWK).
        case invalidDeviceKey
        /// A wrapped key that does not open with the device key.
        case keyUnwrapFailed
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "offline licence \(code.rawValue): \(reason)" }

    public static func == (lhs: OfflineLicenseError, rhs: OfflineLicenseError) -> Bool { lhs.code == rhs.code }
}
