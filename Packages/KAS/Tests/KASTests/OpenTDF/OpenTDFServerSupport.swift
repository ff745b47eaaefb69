import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMJOSE
import MediaDRMJSON

/// A real server (TestServer on port 0) with the OpenTDF routes over a freshly generated key
/// ring, trusting the ring's dev issuer.
final class OpenTDFTestKAS {
    let directory: TemporaryDirectory
    let ring: KeyRing
    let server: TestServer

    init() throws {
        directory = try TemporaryDirectory("kas-opentdf")
        ring = try KeyRing.generate(dataDirectory: directory.appending("data")).ring
        guard let devIssuer = ring.devIssuer else { throw OpenTDFError(.internalFailure, "no dev issuer") }
        let verifier = BearerTokenVerifier(issuers: [
            .init(issuer: DevIssuer.issuer, audiences: [DevIssuer.audience], keys: [devIssuer.verificationKey]),
        ])
        let router = Router<KASRequestContext>()
        router.add(middleware: ErrorMiddleware())
        registerOpenTDFRoutes(on: router, keyRing: KeyRingHolder(ring), verifier: verifier,
                              options: OpenTDFRouteOptions(publicURL: "https://kas.example.com", platformIssuer: DevIssuer.issuer))
        server = try TestServer(router: router)
    }

    deinit { server.stop(gracePeriod: .seconds(1)) }

    /// A token as `kas token --sub SUB --claims '{"entitlements": [...]}'` prints it.
    func token(subject: String, entitlements: [String] = []) throws -> String {
        guard let devIssuer = ring.devIssuer else { throw OpenTDFError(.internalFailure, "no dev issuer") }
        let claims = JSONObject([("entitlements", .array(entitlements.map { .string($0) }))])
        return try devIssuer.token(subject: subject, lifetime: 3600, extraClaims: claims)
    }

    var rsaKey: KeyRingKey? { ring.active(.rsa2048) }
    var ecKey: KeyRingKey? { ring.active(.ecSecp256r1) }
}

/// gzip of `data` by the system gzip.
func gzipped(_ data: Data) throws -> Data {
    let result = try runProcess("/usr/bin/gzip", ["-c", "-n"], stdin: data)
    guard result.status == 0 else { throw OpenTDFError(.internalFailure, "gzip failed") }
    return result.stdout
}

/// Sends a POST with `body` through curl (binary-safe) and returns the result.
func curlPost(_ url: String, body: Data, headers: [String]) throws -> CurlResult {
    var arguments = ["-X", "POST", "--data-binary", "@-"]
    for header in headers { arguments += ["-H", header] }
    // curl adds a default Content-Type for --data-binary; an empty -H removes it when none given.
    if !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) { arguments += ["-H", "Content-Type:"] }
    return try Curl.run(arguments + [url], stdin: body)
}

func jsonObject(_ data: Data) throws -> JSONObject {
    guard case .object(let object) = try JSONParser.parse(data) else { throw OpenTDFError(.malformedRequest, "not an object") }
    return object
}
