/// `host:port` the server binds: an IPv4 address, a host name, or a bracketed IPv6 address
/// (`[::1]:8443`). Port 0 asks the system for a free port (tests).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`; nil when it is not that shape.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[text.startIndex..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portText), (0...65_535).contains(port) else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
            guard NetworkAddress.isIPv6(host) else { return nil }
        } else {
            guard !host.isEmpty, !host.contains(":"), Self.isHostName(host) else { return nil }
        }
        self.host = host
        self.port = port
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func isHostName(_ host: String) -> Bool {
        host.utf8.count <= 253 && host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default:
                false
            }
        }
    }
}
