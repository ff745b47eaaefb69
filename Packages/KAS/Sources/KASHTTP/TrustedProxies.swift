import Foundation

/// The peers whose `X-Forwarded-For` is believed (`trustedProxies`: IP literals or CIDR blocks):
/// a load balancer or reverse proxy in front of the server. Behind one, every viewer arrives
/// from the proxy's address, so the client a request is for is read from the header, right to
/// left, skipping the proxies themselves (the proxy appends the address it saw; anything to the
/// left of that was written by the client and proves nothing).
package struct TrustedProxies: Sendable {
    private let blocks: [AddressBlock]

    /// nil when an entry is neither an IP address nor a CIDR block.
    public init?(_ entries: [String]) {
        var blocks: [AddressBlock] = []
        for entry in entries {
            guard let block = AddressBlock(entry) else { return nil }
            blocks.append(block)
        }
        self.blocks = blocks
    }

    /// No proxy is trusted.
    public static let none = TrustedProxies(blocks: [])

    private init(blocks: [AddressBlock]) { self.blocks = blocks }

    public var isEmpty: Bool { blocks.isEmpty }

    /// Whether `address` (a numeric IP address) is one of the proxies.
    public func contains(_ address: String) -> Bool {
        guard let bytes = AddressBlock.parse(address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client a request from `peer` is for: `peer` itself unless it is a trusted proxy;
    /// then the rightmost `X-Forwarded-For` entry that is not a trusted proxy (every header
    /// occurrence, in order). A proxy that forwarded nothing usable (no header, or a rightmost
    /// untrusted entry that is not an IP address) leaves the request to the proxy itself.
    public func client(peer: String, forwardedFor values: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let bytes = AddressBlock.parse(hop) else { return peer }
            if !blocks.contains(where: { $0.contains(bytes) }) { return AddressBlock.format(bytes) ?? peer }
        }
        return peer
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

    /// The numeric form of 4 or 16 address bytes.
    static func format(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        let written = bytes.withUnsafeBytes { source in
            inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count))
        }
        return written == nil ? nil : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
