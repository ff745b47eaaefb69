import MediaDRMEncoding
import Foundation

/// Settings shared by every request of one `HTTPClient`.
public struct HTTPClientConfiguration: Sendable {
    /// PEM certificates to trust instead of the system store (the `--ca FILE` bytes). libcurl
    /// receives the bytes, not a path.
    public var trustedCertificatesPEM: Data?
    /// A libcurl public-key pin: `sha256//BASE64` (SHA-256 of the server's SubjectPublicKeyInfo),
    /// several joined by `;`. Checked in addition to, never instead of, certificate verification.
    public var publicKeyPin: String?
    public var connectTimeout: Duration
    public var totalTimeout: Duration
    /// Default response body limit; the transfer is aborted as soon as it is passed.
    public var maxResponseBytes: Int
    public var userAgent: String
    /// Idle easy handles kept for reuse (their connections and TLS sessions with them).
    public var maxIdleHandles: Int

    public init(trustedCertificatesPEM: Data? = nil, publicKeyPin: String? = nil,
                connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
                maxResponseBytes: Int = 16 << 20, userAgent: String = "mediadrm-client/1",
                maxIdleHandles: Int = 4) {
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.publicKeyPin = publicKeyPin
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
        self.maxIdleHandles = maxIdleHandles
    }

    func validate() throws(TransportError) {
        if let pem = trustedCertificatesPEM {
            guard pem.count <= 4 << 20 else {
                throw TransportError(.invalidConfiguration, "the trusted certificate bundle is larger than 4 MiB")
            }
            guard pem.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
                throw TransportError(.invalidConfiguration, "the trusted certificate bundle holds no PEM certificate")
            }
        }
        if let pin = publicKeyPin { try Self.validatePin(pin) }
        guard Self.milliseconds(connectTimeout) >= 1, Self.milliseconds(totalTimeout) >= 1 else {
            throw TransportError(.invalidConfiguration, "timeouts must be at least one millisecond")
        }
        guard maxResponseBytes >= 0 else {
            throw TransportError(.invalidConfiguration, "the response limit must not be negative")
        }
        guard HeaderRules.isValidValue(userAgent) else {
            throw TransportError(.invalidConfiguration, "the user agent has a control or non-ASCII character")
        }
    }

    static func validatePin(_ pin: String) throws(TransportError) {
        let parts = pin.split(separator: ";", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 16 else {
            throw TransportError(.invalidConfiguration, "the public-key pin list is empty or too long")
        }
        for part in parts {
            guard part.hasPrefix("sha256//") else {
                throw TransportError(.invalidConfiguration, "a public-key pin does not start with sha256//")
            }
            let digest: Data
            do {
                digest = try Base64.decode(part.dropFirst("sha256//".count))
            } catch {
                throw TransportError(.invalidConfiguration, "a public-key pin is not standard padded base64")
            }
            guard digest.count == 32 else {
                throw TransportError(.invalidConfiguration, "a public-key pin is not a 32-byte SHA-256 digest")
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64(Int32.max) / 1000 else { return Int(Int32.max) }
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
