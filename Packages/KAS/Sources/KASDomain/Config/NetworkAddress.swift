#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks for IP literals and CIDR blocks, as the trusted-proxy list uses them.
package enum NetworkAddress {
    package static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    package static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// An IPv4 or IPv6 address, optionally with a `/prefix` no longer than the address.
    static func isAddressOrBlock(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return false }
        let address = String(parts[0])
        let bits: Int
        if isIPv4(address) {
            bits = 32
        } else if isIPv6(address) {
            bits = 128
        } else {
            return false
        }
        guard parts.count == 2 else { return true }
        let prefix = parts[1]
        guard !prefix.isEmpty, prefix.count <= 3, prefix.allSatisfy({ $0.isASCII && $0.isNumber }),
              let length = Int(prefix) else { return false }
        return length <= bits
    }
}
