import Foundation

/// One FairPlay content key request as the key delegate sees it: on Apple platforms an
/// `AVContentKeyRequest` (through `FairPlayContentKeyDelegate`), in tests a fake. The
/// AVFoundation calls it stands for are named on each requirement.
public protocol FairPlayKeyRequest: AnyObject, Sendable {
    /// `AVContentKeyRequest.identifier`: the playlist's key URI, `skd://<policy uuid>/<component>`.
    var keyIdentifier: String? { get }

    /// `makeStreamingContentKeyRequestData(forApp:contentIdentifier:options:)`: the SPC for the
    /// application certificate and content identifier.
    func makeSPC(certificate: Data, contentIdentifier: Data) async throws(PlaybackError) -> Data

    /// `processContentKeyResponse(_:)` for `.ckc`, `processContentKeyResponseError(_:)` for
    /// `.failure`. AVFoundation answers a processed CKC later, with `contentKeyRequestDidSucceed`
    /// or `didFailWithError`.
    func process(_ response: FairPlayKeyResponse)
}

/// What the delegate hands back to a key request.
public enum FairPlayKeyResponse: Sendable, Equatable {
    /// The CKC from the key service (`AVContentKeyResponse(fairPlayStreamingKeyResponseData:)`).
    case ckc(Data)
    /// The request cannot be answered.
    case failure(PlaybackError)

    public static func == (lhs: FairPlayKeyResponse, rhs: FairPlayKeyResponse) -> Bool {
        switch (lhs, rhs) {
        case (.ckc(let a), .ckc(let b)): a == b
        case (.failure(let a), .failure(let b)): a.code == b.code
        default: false
        }
    }
}

/// Where CKCs come from: the KAS key-request route with `spcData`, on the component's own media
/// session (`KASMediaService`).
public protocol FairPlayCKCSource: Sendable {
    func requestCKC(assetID: String, component: String, sessionID: String, manifest: Data,
                    spc: Data) async throws(PlaybackError) -> (ckc: Data, leaseSeconds: Int?)
}

extension KASMediaService: FairPlayCKCSource {}
