import Foundation

/// A web origin (RFC 6454 §6.2 serialisation): `scheme://host[:port]`, lower-case scheme and
/// host, the default port left out. Parsed from configuration and compared with the `Origin`
/// request header, which browsers send in exactly this form.
package struct WebOrigin: Sendable, Equatable, Hashable {
    package let serialized: String

    package init?(_ text: String) {
        guard text != "null", !text.contains("*"), !text.contains(where: { $0.isWhitespace }),
              let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty,
              components.user == nil, components.password == nil, components.query == nil,
              components.fragment == nil, components.path.isEmpty
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, port != defaultPort {
            serialized = "\(scheme)://\(authority):\(port)"
        } else {
            serialized = "\(scheme)://\(authority)"
        }
    }
}
