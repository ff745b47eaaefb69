import Foundation
@testable import KAS
@testable import KASDomain
@testable import KASHTTP
@testable import KASObservability
@testable import KASRedis
import MediaDRMCrypto
import MediaDRMEncoding
import MediaDRMJSON
import Synchronization
import Testing

/// Answers the SDK's JSON like the SDK would, recording each request: used to test the KAS's
/// side of the interface. Never wired outside tests.
final class RecordingSDKTransport: Sendable {
    let requests = Mutex<[JSONValue]>([])
    let ckc: Data
    let spcAssetID: String?
    let clientInfo: JSONObject

    init(ckc: Data, spcAssetID: String?, clientInfo: JSONObject = JSONObject([
        ("id", .number(JSONNumber(1))), ("status", .number(JSONNumber(0))), ("security-level", .string("main")),
        ("hdcp-type", .number(JSONNumber(1))), ("vm-device-info", .object(JSONObject([("is-vm", .bool(false))]))),
    ])) {
        self.ckc = ckc
        self.spcAssetID = spcAssetID
        self.clientInfo = clientInfo
    }

    var module: FairPlaySDKModule { FairPlaySDKModule(transport: { [self] body in try self.answer(body) }) }

    func answer(_ body: Data) throws -> Data {
        let value = try JSONParser.parse(body)
        requests.withLock { $0.append(value) }
        guard let request = value.object?["fairplay-streaming-request"]?.object else { throw FairPlayError(.malformedResponse, "") }
        if request["get-client-info"] != nil {
            return JSONWriter.write(.object(JSONObject([("fairplay-streaming-response", .object(JSONObject([
                ("get-client-info", .array([.object(clientInfo)])),
            ])))])))
        }
        var item: [(String, JSONValue)] = [("id", .number(JSONNumber(1))), ("status", .number(JSONNumber(0))),
                                           ("ckc", .string(Base64.encode(ckc)))]
        if let spcAssetID { item.append(("asset-id", .string(spcAssetID))) }
        return JSONWriter.write(.object(JSONObject([("fairplay-streaming-response", .object(JSONObject([
            ("create-ckc", .array([.object(JSONObject(item))])),
        ])))])))
    }
}

@Suite struct FairPlayKeyModuleTests {
    @Test func createCKCRequestIsTheSDKJSON() throws {
        let request = FairPlayCKCRequest(
            spc: Data([1, 2, 3, 4]), contentKey: SecretKey(data: try Hex.decode("000102030405060708090a0b0c0d0e0f")),
            contentIV: try Hex.decode("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), contentType: .audio, hdcpType: 1,
            leaseSeconds: 3600, assetID: "3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b/audio")
        let text = String(decoding: FairPlaySDKJSON.createCKCRequest(request), as: UTF8.self)
        #expect(text == #"{"fairplay-streaming-request":{"create-ckc":[{"asset-id":"3f1c9e2a-7b4d-4e8f-9a21-5c6d7e8f9a0b/audio","asset-info":[{"content-iv":"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff","content-key":"000102030405060708090a0b0c0d0e0f","content-type":"audio","encryption-scheme":"cbcs","hdcp-type":1,"lease-duration":3600}],"id":1,"spc":"AQIDBA=="}],"version":1}}"#)
        let info = String(decoding: FairPlaySDKJSON.clientInfoRequest(spc: Data([1, 2, 3, 4])), as: UTF8.self)
        #expect(info == #"{"fairplay-streaming-request":{"get-client-info":[{"id":1,"spc":"AQIDBA=="}],"version":1}}"#)
    }

    @Test func parsesCKCAndClientInfoAnswers() throws {
        let ok = Data(#"{"fairplay-streaming-response":{"create-ckc":[{"id":1,"status":0,"ckc":"AAEC","asset-id":"u/video"}]}}"#.utf8)
        let result = try FairPlaySDKJSON.parseCKCResponse(ok)
        #expect(result.ckc == Data([0, 1, 2]))
        #expect(result.spcAssetID == "u/video")
        let info = try FairPlaySDKJSON.parseClientInfo(Data(
            #"{"fairplay-streaming-response":{"get-client-info":[{"id":1,"status":0,"security-level":"baseline","hdcp-type":0,"vm-device-info":{"is-vm":true}}]}}"#.utf8))
        #expect(info == FairPlayClientInfo(securityLevel: .baseline, hdcp: .type0, virtualMachine: true))
        let sparse = try FairPlaySDKJSON.parseClientInfo(Data(
            #"{"fairplay-streaming-response":{"get-client-info":[{"id":1,"status":0}]}}"#.utf8))
        #expect(sparse == FairPlayClientInfo(securityLevel: .software, hdcp: .unprotected, virtualMachine: nil))
    }

    @Test(arguments: [
        (#"{"fairplay-streaming-response":{"create-ckc":[{"id":1,"status":-42604}]}}"#, FairPlayError.Code.sdkStatus),
        (#"{"fairplay-streaming-response":{"create-ckc":[{"id":1,"status":0}]}}"#, .malformedResponse),
        (#"{"fairplay-streaming-response":{"create-ckc":[]}}"#, .malformedResponse),
        (#"{"fairplay-streaming-response":{"create-ckc":[{"id":1,"status":0,"ckc":"not base64!"}]}}"#, .malformedResponse),
        (#"{"fairplay-streaming-response":{"create-ckc":[{"status":0,"status":0}]}}"#, .malformedResponse),
        ("", .malformedResponse),
    ])
    func refusesFailedOrMalformedAnswers(_ pair: (String, FairPlayError.Code)) {
        #expect(throws: FairPlayError(pair.1, "")) { _ = try FairPlaySDKJSON.parseCKCResponse(Data(pair.0.utf8)) }
    }

    @Test func aFailingTransportIsUnavailable() {
        struct Down: Error {}
        let module = FairPlaySDKModule(transport: { _ in throw Down() })
        #expect(throws: FairPlayError(.unavailable, "")) { _ = try module.clientInfo(spc: Data([1])) }
    }
}
