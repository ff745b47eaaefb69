// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import MediaDRMCrypto
import MediaDRMEncoding
import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// What a FairPlay SPC says about the device, from the SDK's `get-client-info`: where the
/// policy's security-level, HDCP and virtual-machine rules are decided for FairPlay clients
/// (`virtualMachine` nil when the SDK did not report it).
public typealias FairPlayClientInfo = DeviceCapabilities

/// The CKC terms of one component (fps-v2 §10.7 step 6).
public struct FairPlayCKCRequest: Sendable {
    public enum ContentType: String, Sendable { case sd, hd, uhd, audio }

    public var spc: Data
    public var contentKey: SecretKey
    /// `method.iv`, 16 bytes.
    public var contentIV: Data
    /// `uhd` for kind `video`, `audio` for kind `audio`.
    public var contentType: ContentType
    /// -1, 0 or 1.
    public var hdcpType: Int
    public var leaseSeconds: Int
    /// `<policy uuid>/<id>`; SDK 26 does not read it, the SPC's own asset id is checked instead.
    public var assetID: String

    public init(spc: Data, contentKey: SecretKey, contentIV: Data, contentType: ContentType, hdcpType: Int,
                leaseSeconds: Int, assetID: String) {
        self.spc = spc
        self.contentKey = contentKey
        self.contentIV = contentIV
        self.contentType = contentType
        self.hdcpType = hdcpType
        self.leaseSeconds = leaseSeconds
        self.assetID = assetID
    }
}

public struct FairPlayCKCResult: Sendable {
    public var ckc: Data
    /// The content identifier the SDK read from the SPC; the KAS drops the CKC unless it is
    /// `<policy uuid>/<id>`.
    public var spcAssetID: String?

    public init(ckc: Data, spcAssetID: String?) {
        self.ckc = ckc
        self.spcAssetID = spcAssetID
    }
}

public struct FairPlayError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The SDK could not be reached or failed.
        case unavailable
        /// The SDK answered with a non-zero status.
        case sdkStatus
        /// The SDK's answer is not the JSON this module expects.
        case malformedResponse
    }

    public let code: Code
    public let reason: String
    public init(_ code: Code, _ reason: String) { self.code = code; self.reason = reason }
    public var description: String { "FairPlay error (\(code.rawValue)): \(reason)" }
    public static func == (lhs: FairPlayError, rhs: FairPlayError) -> Bool { lhs.code == rhs.code }
}

/// Makes CKCs. The production implementation drives Apple's FairPlay Streaming Server SDK
/// (licensed to deployment-package holders, not in this repository) through its JSON interface;
/// see `FairPlaySDKModule`. Without a configured module the KAS answers 503 — there is no
/// stand-in.
public protocol FairPlayKeyModule: Sendable {
    func clientInfo(spc: Data) throws(FairPlayError) -> FairPlayClientInfo
    func createCKC(_ request: FairPlayCKCRequest) throws(FairPlayError) -> FairPlayCKCResult
}

/// The FairPlay Streaming Server SDK's JSON interface (facts from SDK 26, docs/fairplay.md). The
/// request is `{"fairplay-streaming-request": {"version": 1, "create-ckc": [{"id", "spc",
/// "asset-info": [{...}]}]}}`, answered by `{"fairplay-streaming-response": {"create-ckc":
/// [{"id", "status", "ckc", ...}]}}`.
package enum FairPlaySDKJSON {
    /// The `create-ckc` request for one component.
    public static func createCKCRequest(_ request: FairPlayCKCRequest, id: Int = 1) -> Data {
        let contentKey = request.contentKey.withUnsafeBytes { Hex.encode(Data($0)) }
        let assetInfo: JSONValue = .object(JSONObject([
            ("content-key", .string(contentKey)),
            ("content-iv", .string(Hex.encode(request.contentIV))),
            ("content-type", .string(request.contentType.rawValue)),
            ("encryption-scheme", .string("cbcs")),
            ("hdcp-type", .number(JSONNumber(request.hdcpType))),
            ("lease-duration", .number(JSONNumber(request.leaseSeconds))),
        ]))
        return wrap("create-ckc", .object(JSONObject([
            ("id", .number(JSONNumber(id))),
            ("asset-id", .string(request.assetID)),
            ("spc", .string(Base64.encode(request.spc))),
            ("asset-info", .array([assetInfo])),
        ])))
    }

    /// The `get-client-info` request.
    public static func clientInfoRequest(spc: Data, id: Int = 1) -> Data {
        wrap("get-client-info", .object(JSONObject([
            ("id", .number(JSONNumber(id))),
            ("spc", .string(Base64.encode(spc))),
        ])))
    }

    private static func wrap(_ operation: String, _ item: JSONValue) -> Data {
        JSONWriter.write(.object(JSONObject([
            ("fairplay-streaming-request", .object(JSONObject([
                ("version", .number(JSONNumber(1))),
                (operation, .array([item])),
            ]))),
        ])), options: [.sortedKeys])
    }

    /// The first answer of `operation`, checked for status 0.
    static func answer(_ response: Data, operation: String) throws(FairPlayError) -> JSONObject {
        guard let value = try? JSONParser.parse(response),
              case .object(let root) = value,
              case .object(let body)? = root["fairplay-streaming-response"],
              case .array(let items)? = body[operation],
              case .object(let item)? = items.first
        else { throw FairPlayError(.malformedResponse, "the SDK response has no \(operation) answer") }
        guard case .number(let status)? = item["status"], let code = status.int64 else {
            throw FairPlayError(.malformedResponse, "the SDK answer has no status")
        }
        guard code == 0 else { throw FairPlayError(.sdkStatus, "the SDK answered status \(code)") }
        return item
    }

    public static func parseCKCResponse(_ response: Data) throws(FairPlayError) -> FairPlayCKCResult {
        let item = try answer(response, operation: "create-ckc")
        guard case .string(let text)? = item["ckc"], let ckc = try? Base64.decode(text), !ckc.isEmpty else {
            throw FairPlayError(.malformedResponse, "the SDK answer has no ckc")
        }
        return FairPlayCKCResult(ckc: ckc, spcAssetID: item["asset-id"]?.string)
    }

    /// `security-level` (`baseline`/`main`), the HDCP capability and `vm-device-info`. Anything
    /// unreported reads as the weakest value.
    public static func parseClientInfo(_ response: Data) throws(FairPlayError) -> FairPlayClientInfo {
        let item = try answer(response, operation: "get-client-info")
        let level = item["security-level"]?.string.flatMap { SecurityLevel(rawValue: $0.lowercased()) } ?? .software
        var hdcp = HDCPLevel.unprotected
        if let value = item["hdcp-type"] ?? item["hdcp"] {
            switch value.int64 ?? value.string.flatMap({ Int64($0) }) {
            case .some(1): hdcp = .type1
            case .some(0): hdcp = .type0
            default: hdcp = .unprotected
            }
        }
        var virtualMachine: Bool?
        if case .object(let vm)? = item["vm-device-info"] {
            virtualMachine = vm["is-vm"]?.bool ?? vm["vm"]?.bool
        } else if let flag = item["vm-device-info"]?.bool {
            virtualMachine = flag
        }
        return FairPlayClientInfo(securityLevel: level, hdcp: hdcp, virtualMachine: virtualMachine)
    }
}

/// `FairPlayKeyModule` over the SDK's JSON interface. `transport` carries one request document
/// to the SDK (its local server, or a process wrapping its library) and returns the response
/// document; the app assembly builds it from configuration.
package struct FairPlaySDKModule: FairPlayKeyModule {
    public typealias Transport = @Sendable (Data) throws -> Data
    private let transport: Transport

    public init(transport: @escaping Transport) { self.transport = transport }

    public func clientInfo(spc: Data) throws(FairPlayError) -> FairPlayClientInfo {
        try FairPlaySDKJSON.parseClientInfo(send(FairPlaySDKJSON.clientInfoRequest(spc: spc)))
    }

    public func createCKC(_ request: FairPlayCKCRequest) throws(FairPlayError) -> FairPlayCKCResult {
        try FairPlaySDKJSON.parseCKCResponse(send(FairPlaySDKJSON.createCKCRequest(request)))
    }

    private func send(_ body: Data) throws(FairPlayError) -> Data {
        do {
            return try transport(body)
        } catch {
            // The project's transports throw fixed reasons (timeout, exit status, HTTP status):
            // keep them; anything else gets one fixed reason of its own.
            if let failure = error as? FairPlayError { throw failure }
            throw FairPlayError(.unavailable, "the FairPlay SDK transport failed")
        }
    }
}
