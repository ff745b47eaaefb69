import Foundation
import MediaDRMMedia

/// Where a request's region comes from: a header set by a proxy or CDN (`CF-IPCountry`), believed
/// only when the TCP peer is one of the configured proxies. Anyone else could send the header.
public struct TrustedRegionSource: Sendable {
    public let header: String?
    private let proxies: [AddressBlock]

    /// - Parameter trustedProxies: IPv4/IPv6 literals or CIDR blocks; an entry that is neither is
    ///   refused at start-up (nil), never silently dropped.
    public init?(header: String?, trustedProxies: [String]) {
        var blocks: [AddressBlock] = []
        for entry in trustedProxies {
            guard let block = AddressBlock(entry) else { return nil }
            blocks.append(block)
        }
        self.header = header
        self.proxies = blocks
    }

    private init(header: String?, blocks: [AddressBlock]) {
        self.header = header
        self.proxies = blocks
    }

    /// No region is ever known.
    public static let none = TrustedRegionSource(header: nil, blocks: [])

    /// The region (ISO 3166-1 alpha-2, upper-cased) or nil when unknown or untrusted.
    public func region(for request: ServerRequest) -> String? {
        guard let header, let value = request.headers[header] else { return nil }
        guard isTrustedPeer(request.remoteAddress) else { return nil }
        let code = value.trimmingCharacters(in: .whitespaces).uppercased()
        return MediaRules.isRegionCode(code) ? code : nil
    }

    public func isTrustedPeer(_ address: String) -> Bool {
        guard let bytes = AddressBlock.parse(address) else { return false }
        return proxies.contains { $0.contains(bytes) }
    }
}

/// An IP address block: network bytes and prefix length.
struct AddressBlock: Sendable {
    let network: [UInt8]
    let prefix: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let bytes = Self.parse(String(parts[0])) else { return nil }
        var prefix = bytes.count * 8
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 0, value <= bytes.count * 8, String(value) == parts[1] else { return nil }
            prefix = value
        }
        self.network = bytes
        self.prefix = prefix
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        var remaining = prefix
        for (a, b) in zip(address, network) where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// 4 or 16 bytes; an IPv4-mapped IPv6 address reads as IPv4.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return Array(bytes[12..<16])
            }
            return bytes
        }
        return nil
    }
}
