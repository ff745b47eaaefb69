import Foundation

/// One GET to an OpenID provider: the URL, the CA bundle to trust, the largest body accepted and
/// the time limit of the whole exchange (redirects included).
package struct ProviderHTTPSRequest: Sendable {
    /// Same-host redirects followed before giving up.
    package static let maximumRedirects = 3

    package var url: String
    /// A PEM file of the CAs to trust instead of the system's bundle.
    package var caFile: String?
    package var maximumBodyBytes: Int
    package var timeoutSeconds: Double

    package init(url: String, caFile: String?, maximumBodyBytes: Int, timeoutSeconds: Double) {
        self.url = url
        self.caFile = caFile
        self.maximumBodyBytes = maximumBodyBytes
        self.timeoutSeconds = timeoutSeconds
    }
}

/// A 200 answer: the body and its `Cache-Control` value, if any.
package struct ProviderHTTPSResponse: Sendable {
    package var body: Data
    package var cacheControl: String?

    package init(body: Data, cacheControl: String?) {
        self.body = body
        self.cacheControl = cacheControl
    }
}

/// How the KAS reads a provider's documents: `CurlProviderHTTPSClient` in `kas serve`; tests of
/// the cache and the limiter give a scripted one.
package protocol ProviderHTTPSClient: Sendable {
    func get(_ request: ProviderHTTPSRequest) throws(OpenIDProviderError) -> ProviderHTTPSResponse
}

/// The scheme, host and port of an `https://` URL, compared to refuse cross-host redirects.
package struct HTTPSOrigin: Equatable, Sendable {
    package let host: String
    package let port: Int

    /// Nil for anything but an absolute `https://` URL with a host and without user-info (a
    /// password in a URL would reach the log lines that name it).
    package init?(_ text: String) {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil else { return nil }
        self.host = host.lowercased()
        self.port = components.port ?? 443
    }

    /// Whether `text` is an `http://` URL (refused by name rather than as "not https").
    package static func isPlainHTTP(_ text: String) -> Bool { text.lowercased().hasPrefix("http://") }
}
