// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
/// The §5.2 #2 normalization of a key access `url`: the scheme and host lowercased, port 443
/// dropped for https (80 for http), an empty path or `/`, and no user-info, query or fragment.
/// Only https is a key service, except plain http to a loopback host for local deployments and
/// tests (the transport refuses it elsewhere too).
public enum KeyServiceURL {
    /// The key service §5.2 #2 names.
    public static let platform = "https://platform.arkavo.net"

    /// The normalized form, or nil when `text` is not an acceptable key service URL.
    public static func normalize(_ text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = Substring(text[range.upperBound...])
        guard !rest.contains("?"), !rest.contains("#"), !rest.contains("@"), !rest.contains("\\") else { return nil }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[slash...]
            rest = rest[..<slash]
        }
        guard path.isEmpty || path == "/" else { return nil }
        var host = Substring(rest)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
            host = host[...close]
        } else if let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.[]:".contains($0)) }) else {
            return nil
        }
        let lowerHost = host.lowercased()
        var portText = ""
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(port), value > 0, value <= 65_535 else { return nil }
            let isDefault = (scheme == "https" && value == 443) || (scheme == "http" && value == 80)
            if !isDefault { portText = ":\(value)" }
        }
        if scheme == "http", !["localhost", "127.0.0.1", "[::1]"].contains(lowerHost) { return nil }
        return "\(scheme)://\(lowerHost)\(portText)"
    }
}
