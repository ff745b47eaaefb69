import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import KASTesting
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import MediaDRMMedia
import Testing

/// Requests to a `KASTestHarness` through the curl CLI (never URLSession, docs/architecture.md "No URLSession for key traffic"), trusting
/// the harness's certificate when it serves HTTPS.
extension KASTestHarness {
    private var trust: [String] { certificate.map { ["--cacert", $0.certificatePath] } ?? [] }

    func get(_ path: String, token: String? = nil) throws -> CurlResult {
        try Curl.run(trust + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? []) + [url(path)])
    }

    /// POSTs `body` as is (`Content-Type: application/json` unless `headers` names another).
    func post(_ path: String, token: String?, body: Data, headers: [String] = [], method: String = "POST") throws -> CurlResult {
        var arguments = trust + ["-X", method, "--data-binary", "@-"]
        if !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            arguments += ["-H", "Content-Type: application/json"]
        }
        for header in headers { arguments += ["-H", header] }
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        return try Curl.run(arguments + [url(path)], stdin: body)
    }

    func post(_ path: String, token: String?, json members: [(String, JSONValue)]) throws -> CurlResult {
        try post(path, token: token, body: JSONWriter.write(.object(JSONObject(members)), options: [.sortedKeys]))
    }

    /// Starts a session; the id, or nil when refused.
    func startSession(token: String, asset: String, protocol proto: String = "tdf",
                      extra: [(String, JSONValue)] = []) throws -> String? {
        let result = try post("/media/v1/session/start", token: token,
                              json: [("assetId", .string(asset)), ("protocol", .string(proto))] + extra)
        return (try? JSONParser.parse(result.body))?.object?["sessionId"]?.string
    }

    /// An open-path key request with a fresh P-256 client key.
    func openKeyRequest(token: String, asset: String, component: String?, sessionId: String,
                        manifest: Data) throws -> (result: CurlResult, clientKey: ECP256.KeyAgreement.PrivateKey) {
        let (members, clientKey) = try MediaHarness.openKeyRequestBody(asset: asset, component: component, sessionId: sessionId,
                                                                       manifest: manifest)
        return (try post("/media/v1/key-request", token: token, json: members), clientKey)
    }

    /// The audit events of one viewer of the dev issuer (by `sub`), oldest first.
    func auditEvents(sub: String) -> [JSONObject] {
        let hash = Identity.viewerHash(issuer: DevIssuer.issuer, subject: sub)
        let text = (try? String(contentsOfFile: KASDataDirectory(dataDirectory).auditLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { (try? JSONParser.parse(Data($0.utf8)))?.object }
            .filter { $0["viewer"]?.string == hash }
    }

    /// `package` wrapped to this KAS's active RSA key and naming `kasURL`, catalogued as an fps-v2
    /// title (four seconds, video and audio) at `/<uuid>.tdf`; the package as catalogued.
    func catalogue(_ package: TestPackage, kasURL: String, title: String, now: Date = Date()) throws -> TestPackage {
        var package = package
        package.kasURL = kasURL
        package.kasPublicKey = try #require(keyRing.active(.rsa2048)?.rsaPrivateKey?.publicKey)
        try application.stores.catalog.put(CatalogEntry(
            assetID: package.uuid, title: title, duration: 4, profile: .fpsV2, components: ["video", "audio"],
            mediaPath: try TitlePath("/\(package.uuid).tdf"), policyJSON: Data(try Base64.decode(package.policy.base64)),
            manifest: try package.manifest()), now: now)
        return package
    }

    /// A fresh fps-v2 package (video and audio) with `rules`, catalogued as `catalogue(_:kasURL:title:now:)` does.
    func catalogue(_ rules: MediaRules?, kasURL: String, title: String) throws -> TestPackage {
        var package = try TestPackage.audioVideo()
        package.media = rules?.jsonValue
        return try catalogue(package, kasURL: kasURL, title: title)
    }
}
