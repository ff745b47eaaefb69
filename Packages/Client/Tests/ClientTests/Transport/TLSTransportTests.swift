import Foundation
import MediaDRMJSON
import Testing
@testable import Client

/// HTTPS against the test origin wrapped in TLS with a certificate from a private CA made by the
/// openssl CLI (subjectAltName IP:127.0.0.1, DNS:localhost); pins computed by the openssl CLI.
@Suite struct TLSTransportTests {
    static let sharedOrigin: Result<LocalOrigin, TestSupportError> = {
        do {
            let fixture = try TLSFixture.shared.get()
            let root = try makeTemporaryDirectory()
            try Data("hello over tls\n".utf8).write(to: root.appendingPathComponent("hello.txt"))
            return .success(try LocalOrigin(root: root, certificate: fixture.serverCertificate, key: fixture.serverKey))
        } catch {
            return .failure(TestSupportError("TLS origin: \(error)"))
        }
    }()

    let fixture: TLSFixture
    let origin: LocalOrigin

    init() throws {
        fixture = try TLSFixture.shared.get()
        origin = try Self.sharedOrigin.get()
    }

    private func client(ca: Data?, pin: String? = nil) throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(trustedCertificatesPEM: ca, publicKeyPin: pin,
                                                              connectTimeout: .seconds(5), totalTimeout: .seconds(10)))
    }

    /// Requests for `path` that reached the server's HTTP layer (a refused handshake never does).
    private func requestsSeen(_ path: String) throws -> Int {
        try origin.hits(using: client(ca: fixture.caPEM)).log.filter { $0.path == path }.count
    }

    @Test func theRightCAIsTrusted() async throws {
        let client = try client(ca: fixture.caPEM)
        let response = try await client.send(TransportRequest(url: origin.url("/hello.txt")))
        #expect(response.body == Data("hello over tls\n".utf8))
        let byName = try client.sendSynchronously(TransportRequest(url: "https://localhost:\(origin.port)/hello.txt"))
        #expect(byName.status == 200)
    }

    @Test func withoutTheCAVerificationFails() throws {
        let error = transportError { try client(ca: nil).sendSynchronously(TransportRequest(url: origin.url("/no-ca"))) }
        #expect(error?.code == .tlsFailure)
        #expect(try requestsSeen("/no-ca") == 0)
    }

    @Test func anUnrelatedCAIsNotEnough() throws {
        let error = transportError { try client(ca: fixture.otherCAPEM).sendSynchronously(TransportRequest(url: origin.url("/other-ca"))) }
        #expect(error?.code == .tlsFailure)
        #expect(try requestsSeen("/other-ca") == 0)
    }

    @Test func theRightPinIsAccepted() throws {
        let response = try client(ca: fixture.caPEM, pin: fixture.serverPin).sendSynchronously(TransportRequest(url: origin.url("/hello.txt")))
        #expect(response.status == 200)
        // Any pin of a list may match (rotation).
        let listed = try client(ca: fixture.caPEM, pin: fixture.otherPin + ";" + fixture.serverPin)
        #expect(try listed.sendSynchronously(TransportRequest(url: origin.url("/hello.txt"))).status == 200)
    }

    @Test func aWrongPinIsRefusedBeforeTheRequestIsSent() throws {
        let credential = try Credential(bearerToken: "must-not-arrive")
        let error = transportError {
            try client(ca: fixture.caPEM, pin: fixture.otherPin).sendSynchronously(
                TransportRequest(method: .post, url: origin.url("/wrong-pin"), body: Data("wrong-pin".utf8), credential: credential))
        }
        #expect(error?.code == .pinMismatch)
        #expect(try requestsSeen("/wrong-pin") == 0)
    }

    @Test func aPinNeverReplacesCertificateVerification() throws {
        let error = transportError { try client(ca: nil, pin: fixture.serverPin).sendSynchronously(TransportRequest(url: origin.url("/hello.txt"))) }
        #expect(error?.code == .tlsFailure)
    }

    @Test func postWithCredentialAndRedirectRefusalOverTLS() async throws {
        let client = try client(ca: fixture.caPEM, pin: fixture.serverPin)
        let credential = try Credential(bearerToken: "tls-token")
        let response = try await client.send(TransportRequest(method: .post, url: origin.url("/__echo"), body: Data("{}".utf8), credential: credential))
        let info = try #require(try JSONParser.parse(response.body).object)
        #expect(try info.requireString("authorization") == "Bearer tls-token")

        let error = await asyncTransportError {
            try await client.send(TransportRequest(url: origin.url("/__redirect/302/tls-target.txt"), credential: credential))
        }
        #expect(error?.code == .redirectRefused)
        let hits = try origin.hits(using: client)
        #expect(hits.counts["/tls-target.txt"] == nil)
        #expect(hits.counts["/__redirect/302/tls-target.txt"] == 1)
    }
}
