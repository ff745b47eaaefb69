/// Why the KAS could not take keys from an OpenID provider (docs/kas.md "Issuers by discovery").
/// The reason names the URL and the rule broken, never a key or a token; it goes to the log line
/// `issuer_key_set_fetch_failed` and, for `kas serve --print-config`-time checks, to the operator.
package struct OpenIDProviderError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The URL is not `https://` (discovery and key sets are never fetched in the clear).
        case plainHTTP
        /// The provider answered with a redirect to a different scheme, host or port.
        case redirectToAnotherHost
        /// More same-host redirects than `ProviderHTTPSRequest.maximumRedirects`.
        case tooManyRedirects
        /// The body is larger than the bound for that document.
        case bodyTooLarge
        /// A status other than 200.
        case httpStatus
        /// No connection, a TLS failure (an untrusted certificate) or the time limit.
        case transport
        /// The discovery document or the key set is not the JSON it must be.
        case malformedDocument
        /// The discovery document's `issuer` is not the configured issuer (OpenID Connect Discovery 1.0 §4.3).
        case issuerMismatch
        /// The key set holds no key the KAS can verify signatures with.
        case noUsableKeys
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "OpenID provider error (\(code.rawValue)): \(reason)" }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}
