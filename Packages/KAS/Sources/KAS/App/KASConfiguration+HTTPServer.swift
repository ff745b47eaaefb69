import Foundation
import KASDomain
import KASHTTP
import KASObservability

extension KASConfiguration {
    /// The HTTP server settings this configuration describes: listen address, limits, timeout,
    /// and TLS with the certificate and key read from their files now.
    public func httpServerConfiguration() throws(KASConfigurationError) -> HTTPServerConfiguration {
        guard listen.host == "localhost" || NetworkAddress.isIPv4(listen.host) || NetworkAddress.isIPv6(listen.host) else {
            throw KASConfigurationError(.invalidValue, "listen host must be an IP address or localhost, not a host name")
        }
        var server = HTTPServerConfiguration(host: listen.host, port: listen.port)
        server.maxBodyBytes = limits.maxBodyBytes
        server.maxConnections = limits.maxConnections
        server.maxConnectionsPerIP = limits.maxConnectionsPerIP
        server.requestTimeout = .seconds(limits.requestTimeoutSeconds)
        server.requestDeadline = .seconds(limits.requestDeadlineSeconds)
        server.reservedConnections = limits.reservedConnections
        server.trustedProxies = trustedProxies
        if let tls {
            server.tls = TLSConfiguration(certificatePEM: try Self.readPEM(tls.certificateFile, "tlsCert"),
                                          privateKeyPEM: try Self.readPEM(tls.keyFile, "tlsKey"))
        }
        return server
    }

    private static func readPEM(_ path: String, _ key: String) throws(KASConfigurationError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KASConfigurationError(.unreadableFile, "\(key) '\(path)' cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") else {
            throw KASConfigurationError(.invalidValue, "\(key) '\(path)' is not a PEM file")
        }
        return text
    }
}

extension KASConfiguration {
    /// After binding port 0: the configuration with the real port, and `publicURL` and
    /// `acceptedKASURLs` moved to it when they were the derived defaults (an explicit URL is kept).
    public func bound(toPort port: Int) -> KASConfiguration {
        guard listen.port == 0 else { return self }
        var bound = self
        bound.listen.port = port
        let derived = Self.derivedPublicURL(listen: listen, tls: tls != nil)
        if publicURL == derived {
            bound.publicURL = Self.derivedPublicURL(listen: bound.listen, tls: tls != nil)
            bound.acceptedKASURLs = acceptedKASURLs.map { $0 == derived ? bound.publicURL : $0 }
        }
        return bound
    }
}
