import Foundation
@testable import KAS
@testable import KASDomain
import KASTesting
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// The pieces of DRM-X's backend call read from a request or a file (docs/delivery.md "DRM-X's
/// backend call"): the body (`BackendPlaybackRequest`), the Basic credential (`BasicCredential`),
/// the clients' secrets (`BackendCredentials`) and `delivery.backendClients` in the configuration
/// file. Malformed and truncated input is refused with a typed error, never a crash.
@Suite struct BackendRequestTests {
    static let valid = #"""
    {"viewer": {"subject": "alice", "entitlements": ["https://example.com/attr/tier/value/gold"],
                "rentals": {"5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11": 1796148084}, "shoeSize": 44},
     "contentId": "Ab12cd34", "contentType": "vod", "drmSystem": "fairplay", "manifestTypes": ["hls"],
     "clientPlatform": "ios", "customerOrderRef": "x-1"}
    """#

    func read(_ text: String) throws -> BackendPlaybackRequest {
        try BackendPlaybackRequest(json: JSONParser.parse(Array(text.utf8)), issuer: "https://school.example")
    }

    @Test func drmxMembersAreReadAndUnknownOnesKeptNowhere() throws {
        let request = try read(Self.valid)
        #expect(request.playback.assetID == "Ab12cd34")
        #expect(request.playback.drmSystem == .fairplay && request.playback.manifestTypes == [.hls])
        #expect(request.playback.live == false)
        #expect(request.viewer.subject == "alice" && request.viewer.issuer == "https://school.example")
        #expect(request.viewer.entitlements == ["https://example.com/attr/tier/value/gold"])
        #expect(request.viewer.rentals[UUID(uuidString: "5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11")!] == 1796148084)
        #expect(Set(request.viewer.claims.keys) == ["sub", "iss", "entitlements", "rentals"])
        #expect(try read(Self.valid.replacingOccurrences(of: #""vod""#, with: #""live""#)).playback.live == true)
    }

    @Test(arguments: [
        (#""contentId": "Ab12cd34","#, #""#, "contentId"),
        (#""contentId": "Ab12cd34""#, #""contentId": """#, "contentId"),
        (#""contentId": "Ab12cd34""#, #""contentId": 12"#, "contentId"),
        (#""contentId": "Ab12cd34""#, #""contentId": "\#(String(repeating: "a", count: 129))""#, "contentId"),
        (#""contentType": "vod""#, #""contentType": "VOD""#, "contentType"),
        (#""contentType": "vod","#, #""#, "contentType"),
        (#""drmSystem": "fairplay""#, #""drmSystem": "widevine""#, "malformed playback request"),
        (#""manifestTypes": ["hls"]"#, #""manifestTypes": []"#, "manifestTypes"),
        (#""clientPlatform": "ios""#, #""clientPlatform": "\#(String(repeating: "i", count: 33))""#, "malformed playback request"),
        (#""subject": "alice""#, #""subject": """#, "subject"),
        (#""subject": "alice""#, #""subject": ["alice"]"#, "subject"),
        (#""subject": "alice""#, #""subject": "\#(String(repeating: "s", count: 257))""#, "subject"),
        (#"["https://example.com/attr/tier/value/gold"]"#, #"[7]"#, "entitlements"),
        (#"["https://example.com/attr/tier/value/gold"]"#, #""gold""#, "entitlements"),
        (#"["https://example.com/attr/tier/value/gold"]"#, "[" + Array(repeating: #""a""#, count: 65).joined(separator: ",") + "]", "entitlements"),
        (#""5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11": 1796148084"#, #""not-a-uuid": 1796148084"#, "rentals"),
        (#""5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11": 1796148084"#, #""5f0c3a52-7a7e-4c1e-9d3b-2b1f0e9a8c11": "soon""#, "rentals"),
    ])
    func malformedFieldsAreRefusedNamingThem(original: String, replacement: String, mentions: String) throws {
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.valid)
        do {
            _ = try read(text)
            Issue.record("accepted: \(text)")
        } catch let failure as DeliveryFailure {
            guard case .malformed(let sentence) = failure else { Issue.record("\(failure)"); return }
            #expect(sentence.contains(mentions), "\(sentence)")
        }
    }

    @Test func aBodyWithoutTheViewerOrNotAnObjectIsRefused() throws {
        for text in [#"[]"#, #"{"contentId": "Ab12cd34", "contentType": "vod", "drmSystem": "fairplay"}"#,
                     #"{"viewer": "alice", "contentId": "Ab12cd34", "contentType": "vod", "drmSystem": "fairplay"}"#] {
            #expect(throws: DeliveryFailure.self) { try read(text) }
        }
    }

    /// Every prefix of a valid body is either not JSON or refused with a typed error.
    @Test func truncatedBodiesAreRefused() {
        let bytes = Array(Self.valid.utf8)
        for end in 0..<bytes.count {
            guard let json = try? JSONParser.parse(Array(bytes[..<end])) else { continue }
            #expect(throws: DeliveryFailure.self) { try BackendPlaybackRequest(json: json, issuer: "https://school.example") }
        }
    }

    @Test func basicCredentialsAreReadStrictly() {
        func header(_ text: String) -> String { "Basic " + Base64.encode(Data(text.utf8)) }
        let read = BasicCredential(authorizationHeaderValues: [header("school-backend:se:cret")])
        #expect(read?.id == "school-backend" && read?.secret == Array("se:cret".utf8))
        #expect(BasicCredential(authorizationHeaderValues: ["basic " + Base64.encode(Data("a:b".utf8))])?.id == "a")
        for values in [[], [header("a:b"), header("a:b")], [header("no-colon")], [header(":secret")],
                       ["Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"], ["Basic"], ["Basic !!!"], ["Basic YTpi="],
                       ["Basic " + String(repeating: "A", count: 2000)]] {
            #expect(BasicCredential(authorizationHeaderValues: values) == nil, "\(values)")
        }
    }

    @Test func clientSecretsAreFilesOfTheirOwnComparedWhole() throws {
        let temp = try TemporaryDirectory()
        let secret = String(repeating: "ab", count: 32)
        let file = try temp.write("school.secret", secret + "\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let credentials = try BackendCredentials([BackendClient(id: "school", secretFile: file, issuer: "https://school.example")])
        #expect(credentials.client(id: "school", secret: Array(secret.utf8))?.issuer == "https://school.example")
        #expect(credentials.client(id: "school", secret: Array((secret + "\n").utf8)) == nil)
        #expect(credentials.client(id: "school", secret: Array(secret.dropLast().utf8)) == nil)
        #expect(credentials.client(id: "other", secret: Array(secret.utf8)) == nil)

        let open = try temp.write("open.secret", secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
        #expect(throws: DeliverySecretError.self) { try BackendCredentials([BackendClient(id: "o", secretFile: open, issuer: "i")]) }
        let short = try temp.write("short.secret", "tooshort")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: short)
        #expect(throws: DeliverySecretError.self) { try BackendCredentials([BackendClient(id: "s", secretFile: short, issuer: "i")]) }
    }

    @Test func backendClientsAreReadFromTheFileAndPrintedBack() throws {
        let json = #"""
        {"delivery": {"signedCertificateURL": true, "backendClients": [
          {"id": "school-backend", "secretFile": "school.secret", "issuer": "https://school.example", "callsPerMinute": 30},
          {"id": "other.backend_2", "secretFile": "/etc/kas/other.secret", "issuer": "https://other.example"}]}}
        """#
        let configuration = try KASConfiguration.resolve([
            KASConfiguration.fileOverrides(bytes: Array(json.utf8), file: "kas.json", baseDirectory: "/etc/kas"),
        ])
        #expect(configuration.delivery.signedCertificateURL)
        #expect(configuration.delivery.backendClients == [
            BackendClient(id: "school-backend", secretFile: "/etc/kas/school.secret", issuer: "https://school.example", callsPerMinute: 30),
            BackendClient(id: "other.backend_2", secretFile: "/etc/kas/other.secret", issuer: "https://other.example"),
        ])
        // The printed section reads back as the same section (the secrets stay in their files).
        let printed = JSONWriter.write(configuration.jsonValue)
        #expect(!String(decoding: printed, as: UTF8.self).contains("\"secret\""))
        #expect(try KASConfiguration.resolve([
            KASConfiguration.fileOverrides(bytes: Array(printed), file: "printed.json", baseDirectory: "/elsewhere"),
        ]).delivery == configuration.delivery)
        #expect(try KASConfiguration.load().delivery.backendClients.isEmpty)
        #expect(try !KASConfiguration.load().delivery.signedCertificateURL)
    }

    @Test(arguments: [
        (#"{"delivery": {"backendClients": {}}}"#, "delivery.backendClients"),
        (#"{"delivery": {"backendClients": [{"id": "a", "secretFile": "s"}]}}"#, "delivery.backendClients[0]"),
        (#"{"delivery": {"backendClients": [{"id": "a:b", "secretFile": "s", "issuer": "i"}]}}"#, "delivery.backendClients[0].id"),
        (#"{"delivery": {"backendClients": [{"id": "a", "secretFile": "s", "issuer": "i"}, {"id": "a", "secretFile": "t", "issuer": "i"}]}}"#,
         "delivery.backendClients[1].id"),
        (#"{"delivery": {"backendClients": [{"id": "a", "secretFile": "s", "issuer": "i", "secret": "x"}]}}"#, "delivery.backendClients[0]"),
        (#"{"delivery": {"backendClients": [{"id": "a", "secretFile": "s", "issuer": "i", "callsPerMinute": 0}]}}"#,
         "delivery.backendClients[0].callsPerMinute"),
        (#"{"delivery": {"backendClients": [{"id": "a", "secretFile": "s", "issuer": ""}]}}"#, "delivery.backendClients[0].issuer"),
        (#"{"delivery": {"signedCertificateURL": "yes"}}"#, "delivery.signedCertificateURL"),
    ])
    func malformedBackendClientsNameTheKey(json: String, key: String) {
        do {
            _ = try KASConfiguration.fileOverrides(bytes: Array(json.utf8), file: "kas.json", baseDirectory: "/etc/kas")
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.reason.contains("'\(key)'"), "\(error.reason)")
        }
    }
}
