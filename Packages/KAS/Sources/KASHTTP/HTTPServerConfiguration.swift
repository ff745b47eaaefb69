import Foundation

/// Certificate and key for HTTPS, PEM text. GnuTLS (libmicrohttpd's TLS library) reads
/// PKCS#8 and traditional RSA/EC private keys; the certificate may be followed by its chain.
public struct TLSConfiguration: Sendable, CustomStringConvertible {
    public var certificatePEM: String
    public var privateKeyPEM: String
    /// A GnuTLS priority string; the default allows TLS 1.2 and 1.3 only.
    public var priorities: String = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    public var description: String { "TLSConfiguration(certificate: \(certificatePEM.utf8.count) bytes, key: redacted)" }
}

public struct HTTPServerConfiguration: Sendable {
    /// A numeric IPv4 or IPv6 address (`0.0.0.0` or `::` for all), or `localhost`.
    public var host: String = "127.0.0.1"
    /// 0 lets the kernel choose; `HTTPServer.port` tells which it chose.
    public var port: Int = 8443
    /// libmicrohttpd worker threads, each with its own epoll loop; handlers run on them.
    /// Four per core: libmicrohttpd ties each keep-alive connection to one thread for its life
    /// and handlers block (state-store lock, socket writes), so with one thread per core a busy
    /// thread's connections queue while a core idles (warm key requests at saturation used
    /// 98-160 % of 200 % CPU).
    public var threadPoolSize: Int = 4 * ProcessInfo.processInfo.activeProcessorCount
    /// Largest request body. A larger Content-Length is answered 413 before any body byte is
    /// read; a chunked body is cut when it passes the limit.
    public var maxBodyBytes: Int = 1 << 20
    /// The per-connection memory pool, which bounds the request line plus headers (libmicrohttpd
    /// answers 431 beyond it). It also holds the read buffer, so keep it at 8 KiB or more.
    public var maxHeaderBytes: Int = 32 * 1024
    /// Open connections in total (0 = libmicrohttpd's default, bounded by the fd limit).
    public var maxConnections: Int = 1024
    /// Open connections from one IP address (0 = unlimited). Connections whose client already
    /// closed its side are not counted. Not applied to trusted proxies; their requests in
    /// progress are limited to this many per forwarded client instead.
    public var maxConnectionsPerIP: Int = 64
    /// The last slots of `maxConnections`, given only to addresses holding fewer than 4
    /// connections, so a flood from a few addresses leaves room for everyone else. Below
    /// `maxConnections`; nil: `defaultReservedConnections(maxConnections:)`.
    public var reservedConnections: Int?
    /// A connection idle this long (no bytes received or sent) is closed, whether it is between
    /// requests or in the middle of sending one. Whole seconds, at least 1.
    public var requestTimeout: Duration = .seconds(30)
    /// A request's line, headers and body must have arrived this long after the connection
    /// opened or the previous response on it was sent, however steadily the bytes trickle in;
    /// otherwise the connection is closed. An idle keep-alive connection is closed after this
    /// long too. At least 1 second.
    public var requestDeadline: Duration = .seconds(10)
    /// Peers (IP addresses or CIDR blocks) whose `X-Forwarded-For` names the client: the
    /// per-address cap applies to the forwarded client, not to the proxy.
    public var trustedProxies: [String] = []
    /// How long `shutdown()` waits for in-flight requests.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// HTTPS when set.
    public var tls: TLSConfiguration?

    /// An eighth of the connection limit, at most 64.
    public static func defaultReservedConnections(maxConnections: Int) -> Int { min(64, maxConnections / 8) }

    /// The reserve in effect.
    public var effectiveReservedConnections: Int {
        reservedConnections ?? Self.defaultReservedConnections(maxConnections: maxConnections)
    }

    public init(host: String = "127.0.0.1", port: Int = 8443, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}

/// Failures to start the server. Reasons name the setting, never the key material.
public struct HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable { case invalidConfiguration, invalidAddress, tlsUnavailable, startFailed, alreadyStarted }
    public let code: Code
    public let reason: String
    public init(_ code: Code, _ reason: String) { self.code = code; self.reason = reason }
    public var description: String { "HTTP server error (\(code.rawValue)): \(reason)" }
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.code == rhs.code }
}
