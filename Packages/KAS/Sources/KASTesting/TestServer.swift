import Foundation
import KAS
import KASDomain
import KASHTTP
import KASObservability
import KASRedis

/// The real server, in process, on 127.0.0.1 and a port the kernel picks; plain HTTP or HTTPS
/// with a fresh self-signed certificate. For this package's tests and the Client and end-to-end
/// tests. Stop it with `stop()` (also done on deinit).
public final class TestServer: Sendable {
    public let server: HTTPServer
    public let port: Int
    /// `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`, no trailing slash.
    public let baseURL: URL
    /// Set for TLS servers: trust `certificate.certificatePath` (or its PEM) in the client.
    public let certificate: TestCertificate?

    /// - Parameter configure: adjusts the configuration (limits, pool size) before start;
    ///   host, port and TLS are set by the harness.
    public convenience init<Context: RequestContext>(router: Router<Context>, tls: Bool = false,
                            configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws(HTTPServerError) {
        try self.init(responder: router.responder(), tls: tls, configure: configure)
    }

    public init<Context: RequestContext>(responder: HTTPResponder<Context>, tls: Bool = false,
                configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws(HTTPServerError) {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.threadPoolSize = 2
        configuration.shutdownGracePeriod = .seconds(5)
        configure(&configuration)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var certificate: TestCertificate?
        if tls {
            let made = try TestCertificate.generate()
            certificate = made
            configuration.tls = TLSConfiguration(certificatePEM: made.certificatePEM, privateKeyPEM: made.privateKeyPEM)
        } else {
            configuration.tls = nil
        }
        let server = HTTPServer(configuration: configuration, responder: responder)
        do {
            try server.start()
        } catch {
            certificate?.remove()
            throw error
        }
        guard server.port > 0, let url = URL(string: "\(tls ? "https" : "http")://127.0.0.1:\(server.port)") else {
            server.shutdown(gracePeriod: .zero)
            certificate?.remove()
            throw HTTPServerError(.startFailed, "the server did not report its port")
        }
        self.server = server
        self.port = server.port
        self.baseURL = url
        self.certificate = certificate
    }

    deinit { stop() }

    /// Graceful shutdown (in-flight requests finish), then the certificate files are removed.
    public func stop(gracePeriod: Duration = .seconds(5)) {
        server.shutdown(gracePeriod: gracePeriod)
        certificate?.remove()
    }

    /// `baseURL` + path, for clients that take a string.
    public func url(_ path: String) -> String {
        baseURL.absoluteString + (path.hasPrefix("/") ? path : "/" + path)
    }
}
