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

/// `FairPlayHTTPTransport` against `SDKServiceTestDouble`, a loopback HTTP service standing in
/// for a service wrapping the SDK (not FairPlay).
@Suite struct FairPlayHTTPTransportTests {
    private func ckcRequest(assetID: String) throws -> FairPlayCKCRequest {
        FairPlayCKCRequest(spc: Data([1, 2, 3, 4]), contentKey: SecretKey(data: try Hex.decode("000102030405060708090a0b0c0d0e0f")),
                           contentIV: try Hex.decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), contentType: .uhd, hdcpType: 1,
                           leaseSeconds: 3600, assetID: assetID)
    }

    @Test func postsTheRequestDocumentAndReturnsTheCKC() throws {
        let ckc = Data((0..<32).map { UInt8($0) })
        let service = try SDKServiceTestDouble(ckc: ckc, spcAssetID: "u/video")
        let module = FairPlaySDKModule(transport: FairPlayHTTPTransport(url: service.url("/sdk"), timeoutSeconds: 5).send)
        let request = try ckcRequest(assetID: "u/video")
        let result = try module.createCKC(request)
        #expect(result.ckc == ckc)
        #expect(result.spcAssetID == "u/video")
        #expect(service.requests == [FairPlaySDKJSON.createCKCRequest(request)])
        let info = try module.clientInfo(spc: Data([9]))
        #expect(info == FairPlayClientInfo(securityLevel: .main, hdcp: .type1, virtualMachine: false))
    }

    @Test func redirectsAreRefusedAndNeverFollowed() throws {
        let service = try SDKServiceTestDouble(spcAssetID: "u/video")
        let transport = FairPlayHTTPTransport(url: service.url("/redirect"), timeoutSeconds: 5)
        let error = #expect(throws: FairPlayError.self) { _ = try transport.send(FairPlaySDKJSON.clientInfoRequest(spc: Data([1]))) }
        #expect(error?.reason == FairPlayHTTPTransport.badStatus.reason)
        #expect(service.requests.isEmpty, "the redirect target never got the request")
    }

    @Test func errorsMapToFixedReasons() throws {
        let service = try SDKServiceTestDouble(spcAssetID: "u/video")
        let body = FairPlaySDKJSON.clientInfoRequest(spc: Data([1]))
        let failing = FairPlayHTTPTransport(url: service.url("/error"), timeoutSeconds: 5)
        #expect((#expect(throws: FairPlayError.self) { _ = try failing.send(body) })?.reason == FairPlayHTTPTransport.badStatus.reason)
        // `/slow` answers after 600 s: only the 1 s timeout can produce `timedOut`.
        let slow = FairPlayHTTPTransport(url: service.url("/slow"), timeoutSeconds: 1)
        #expect((#expect(throws: FairPlayError.self) { _ = try slow.send(body) })?.reason == FairPlayHTTPTransport.timedOut.reason)
        let small = FairPlayHTTPTransport(url: service.url("/sdk"), timeoutSeconds: 5, maxResponseBytes: 16)
        #expect((#expect(throws: FairPlayError.self) { _ = try small.send(body) })?.reason == FairPlayHTTPTransport.tooLarge.reason)
        // Nothing listens on port 1 here: connection refused.
        let refused = FairPlayHTTPTransport(url: try #require(URL(string: "http://127.0.0.1:1/sdk")), timeoutSeconds: 2)
        #expect((#expect(throws: FairPlayError.self) { _ = try refused.send(body) })?.reason == FairPlayHTTPTransport.unreachable.reason)
    }
}
