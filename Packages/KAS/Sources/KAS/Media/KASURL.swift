/// KAS URL comparison as fps-v2 §5.2 normalises it: scheme and host lower-cased, the scheme's
/// default port dropped (443 for https, 80 for http), an empty path or `/` only, and no
/// user-info, query or fragment. Anything else does not normalise and names no accepted KAS.
public enum KASURL {
    public static func normalize(_ text: String) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = text[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#"), !rest.contains("@"), !rest.contains("\\") else { return nil }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...] == "/" else { return nil }
            rest = rest[..<slash]
        }
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
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        var portText = ""
        if let port {
            guard !port.isEmpty, port.utf8.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(port),
                  (1...65_535).contains(value) else { return nil }
            let defaultPort = scheme == "https" ? 443 : 80
            if value != defaultPort { portText = ":\(value)" }
        }
        return "\(scheme)://\(host.lowercased())\(portText)"
    }
}
