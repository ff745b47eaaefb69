import CCurl

/// A request URL parsed by libcurl's own URL parser and checked against the transport rules.
/// The parsed handle is what the transfer uses (CURLOPT_CURLU), so the host that was checked is
/// the host that is contacted: there is no second parser to disagree with.
final class TransportURL {
    let handle: OpaquePointer
    let isTLS: Bool
    let isLoopback: Bool

    private init(handle: OpaquePointer, isTLS: Bool, isLoopback: Bool) {
        self.handle = handle
        self.isTLS = isTLS
        self.isLoopback = isLoopback
    }

    deinit { curl_url_cleanup(handle) }

    /// HTTPS to any host; plain HTTP only to 127.0.0.0/8, ::1 and `localhost` (which libcurl
    /// resolves to loopback itself). Anything else throws here, before a socket exists.
    static func validate(_ text: String) throws(TransportError) -> TransportURL {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 8 << 10 else {
            throw TransportError(.invalidURL, "the URL is empty or longer than 8 KiB")
        }
        guard bytes.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw TransportError(.invalidURL, "the URL has a space, control or non-ASCII character")
        }
        guard let handle = curl_url() else { throw TransportError(.internalError, "libcurl could not allocate a URL handle") }
        var owned: OpaquePointer? = handle
        defer { if let owned { curl_url_cleanup(owned) } }

        guard curl_url_set(handle, CURLUPART_URL, text, mediadrm_curlu_parse_flags()) == CURLUE_OK else {
            throw TransportError(.invalidURL, "the URL is not an absolute http or https URL without user information")
        }
        guard let scheme = part(handle, CURLUPART_SCHEME)?.lowercased(), scheme == "http" || scheme == "https" else {
            throw TransportError(.invalidURL, "the URL scheme is not http or https")
        }
        guard let host = part(handle, CURLUPART_HOST), !host.isEmpty else {
            throw TransportError(.invalidURL, "the URL has no host")
        }
        let loopback = isLoopbackHost(host)
        if scheme == "http" && !loopback {
            throw TransportError(.insecureURL, "plain http is allowed only to a loopback host; use https")
        }
        owned = nil
        return TransportURL(handle: handle, isTLS: scheme == "https", isLoopback: loopback)
    }

    /// The URL's path as libcurl parsed it, without the query or fragment (a signed URL's
    /// secrets live there), cut at 200 characters: what an error message may name.
    var displayPath: String {
        let path = Self.part(handle, CURLUPART_PATH) ?? "/"
        return path.count > 200 ? String(path.prefix(200)) + "…" : path
    }

    /// `scheme://host:port` in lower case with the default port written out: two URLs of one
    /// origin (RFC 6454) give the same text.
    var origin: String {
        let scheme = Self.part(handle, CURLUPART_SCHEME)?.lowercased() ?? ""
        let host = Self.part(handle, CURLUPART_HOST)?.lowercased() ?? ""
        let port = Self.part(handle, CURLUPART_PORT) ?? (scheme == "https" ? "443" : "80")
        return "\(scheme)://\(host):\(port)"
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    static func isLoopbackHost(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "[::1]" || lower == "::1" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  part.count == 1 || part.first != "0", let value = Int(part), value <= 255 else { return false }
            octets.append(value)
        }
        return octets.first == 127
    }
}
