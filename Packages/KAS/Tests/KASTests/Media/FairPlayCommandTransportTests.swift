import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Testing

/// `FairPlayCommandTransport` against a real executable: `SDKCommandTestDouble`, a shell script
/// standing in for the SDK's JSON transport (not FairPlay).
@Suite struct FairPlayCommandTransportTests {
    private func fairPlayRequest(_ harness: MediaHarness, token: String, package: TestPackage, component: String,
                                 spc: Data) throws -> CurlResult {
        let session = try #require(try harness.startSession(token: token, asset: package.uuid, protocol: "fairplay").sessionId)
        return try harness.post("/media/v1/key-request", token: token, body: .object(JSONObject([
            ("assetId", .string(package.uuid)), ("component", .string(component)), ("sessionId", .string(session)),
            ("spcData", .string(Base64.encode(spc))), ("tdfManifest", .string(Base64.encode(try package.manifest()))),
        ])))
    }

    @Test func theKASSendsEachComponentsTermsAndTheCKCComesBack() throws {
        let package = try TestPackage.audioVideo()
        let ckc = Data((0..<80).map { UInt8($0 ^ 0x5A) })
        let spc = Data((0..<40).map { UInt8($0) })
        for component in package.components {
            let double = try SDKCommandTestDouble(ckc: ckc, spcAssetID: "\(package.uuid)/\(component.id)")
            let harness = try MediaHarness(configure: { $0.leaseSeconds = 900 },
                                           fairPlay: FairPlaySDKModule(transport: double.transport().send))
            let token = try harness.viewer("alice@example.com")
            let result = try fairPlayRequest(harness, token: token, package: package, component: component.id, spc: spc)
            #expect(result.status == 200, "\(component.id): \(result.text)")
            let body = try #require(try JSONParser.parse(result.body).object)
            #expect(body["wrappedKey"]?.string == Base64.encode(ckc))
            #expect(body["metadata"]?.object?["lease_seconds"]?.int64 == 900)

            let requests = double.requests.map { String(decoding: $0, as: UTF8.self) }
            #expect(requests.count == 2)
            #expect(requests.first == #"{"fairplay-streaming-request":{"get-client-info":[{"id":1,"spc":"\#(Base64.encode(spc))"}],"version":1}}"#)
            let contentType = component.kind == "video" ? "uhd" : "audio"
            #expect(requests.last == #"{"fairplay-streaming-request":{"create-ckc":[{"asset-id":"\#(package.uuid)/\#(component.id)","asset-info":[{"content-iv":"\#(Hex.encode(package.iv))","content-key":"\#(Hex.encode(component.key))","content-type":"\#(contentType)","encryption-scheme":"cbcs","hdcp-type":1,"lease-duration":900}],"id":1,"spc":"\#(Base64.encode(spc))"}],"version":1}}"#)
        }
    }

    @Test func aCKCForAnotherAssetIsDropped() throws {
        let package = try TestPackage.audioVideo()
        let double = try SDKCommandTestDouble(spcAssetID: "\(package.uuid)/audio")
        let harness = try MediaHarness(fairPlay: FairPlaySDKModule(transport: double.transport().send))
        let token = try harness.viewer("alice@example.com")
        let result = try fairPlayRequest(harness, token: token, package: package, component: "video", spc: Data([1, 2]))
        #expect(result.status == 403)
        #expect(result.text == #"{"error":"manifest refused"}"#)
        #expect(harness.auditEvents.last?["reason"]?.string == "spc_asset_mismatch")
        #expect(double.requests.count == 2)
    }

    @Test func aCommandThatFailsIs503() throws {
        let package = try TestPackage.videoOnly()
        let double = try SDKCommandTestDouble(spcAssetID: "\(package.uuid)/video")
        let harness = try MediaHarness(fairPlay: FairPlaySDKModule(transport: double.transport("fail").send))
        let token = try harness.viewer("alice@example.com")
        let result = try fairPlayRequest(harness, token: token, package: package, component: "video", spc: Data([1]))
        #expect(result.status == 503)
        #expect(result.text == #"{"error":"fairplay unavailable"}"#)
    }

    /// Each failure has its fixed reason (`FairPlayError` compares codes only, so reasons are
    /// compared here), also through `FairPlaySDKModule`.
    @Test(arguments: [
        ("fail", FairPlayCommandTransport.failed),
        ("sleep", FairPlayCommandTransport.timedOut),
        ("flood", FairPlayCommandTransport.tooLarge),
    ])
    func failuresMapToFixedErrors(_ pair: (String, FairPlayError)) throws {
        let double = try SDKCommandTestDouble(spcAssetID: "x/video")
        let transport = double.transport(pair.0, timeoutSeconds: 1, maxResponseBytes: 64 << 10)
        // `sleep` outlasts the 1 s timeout by minutes: only the timeout can produce `timedOut`.
        let error = #expect(throws: FairPlayError.self) { _ = try transport.send(Data(#"{"a":1}"#.utf8)) }
        #expect(error?.reason == pair.1.reason)
        #expect(error?.code == pair.1.code)
        let module = FairPlaySDKModule(transport: transport.send)
        let viaModule = #expect(throws: FairPlayError.self) { _ = try module.clientInfo(spc: Data([1])) }
        #expect(viaModule?.reason == pair.1.reason)
    }

    @Test func aMissingExecutableCannotStart() {
        let transport = FairPlayCommandTransport(executable: "/nonexistent/sdk-command", timeoutSeconds: 1)
        let error = #expect(throws: FairPlayError.self) { _ = try transport.send(Data("{}".utf8)) }
        #expect(error?.reason == FairPlayCommandTransport.notStarted.reason)
    }

    @Test func anAnswerWithoutReadingTheRequestStillCounts() throws {
        let double = try SDKCommandTestDouble(ckc: Data([7, 7, 7]), spcAssetID: "u/video")
        // A request larger than a pipe buffer, to a child that never reads it.
        let answer = try double.transport("noread").send(Data(repeating: UInt8(ascii: " "), count: 1 << 20))
        #expect(try FairPlaySDKJSON.parseCKCResponse(answer).ckc == Data([7, 7, 7]))
    }
}
