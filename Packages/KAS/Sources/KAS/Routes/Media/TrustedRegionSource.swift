import Foundation
import KASDomain
import KASHTTP
import KASObservability
import MediaDRMMedia

/// Where a request's region comes from: a header set by a proxy or CDN (`CF-IPCountry`), believed
/// only when the TCP peer is one of the configured proxies. Anyone else could send the header.
package struct TrustedRegionSource: Sendable {
    public let header: String?
    private let proxies: TrustedProxies

    /// - Parameter trustedProxies: IPv4/IPv6 literals or CIDR blocks; an entry that is neither is
    ///   refused at start-up (nil), never silently dropped.
    public init?(header: String?, trustedProxies: [String]) {
        guard let proxies = TrustedProxies(trustedProxies) else { return nil }
        self.header = header
        self.proxies = proxies
    }

    private init(header: String?, proxies: TrustedProxies) {
        self.header = header
        self.proxies = proxies
    }

    /// No region is ever known.
    public static let none = TrustedRegionSource(header: nil, proxies: TrustedProxies.none)

    /// The region (ISO 3166-1 alpha-2, upper-cased) or nil when unknown or untrusted.
    public func region(for request: ServerRequest) -> String? {
        guard let header, let value = request.headers[header] else { return nil }
        guard isTrustedPeer(request.remoteAddress) else { return nil }
        let code = value.trimmingCharacters(in: .whitespaces).uppercased()
        return MediaRules.isRegionCode(code) ? code : nil
    }

    public func isTrustedPeer(_ address: String) -> Bool { proxies.contains(address) }
}
