import CCurl

/// What the linked libcurl can do. Key traffic needs HTTPS with public-key pinning; a build
/// against a libcurl without TLS is refused at start-up rather than at the first key request.
public struct TransportCapabilities: Sendable, Equatable {
    public let libcurlVersion: String
    public let supportsHTTPS: Bool
    public let sslBackend: String

    public static func current() -> TransportCapabilities {
        guard let info = mediadrm_curl_version_info() else {
            return TransportCapabilities(libcurlVersion: "unknown", supportsHTTPS: false, sslBackend: "none")
        }
        var https = false
        if var protocols = info.pointee.protocols {
            while let name = protocols.pointee {
                if String(cString: name) == "https" { https = true }
                protocols = protocols.advanced(by: 1)
            }
        }
        let version = info.pointee.version.map { String(cString: $0) } ?? "unknown"
        let ssl = info.pointee.ssl_version.map { String(cString: $0) } ?? "none"
        return TransportCapabilities(libcurlVersion: version, supportsHTTPS: https, sslBackend: ssl)
    }
}
