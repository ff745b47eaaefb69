#if canImport(AVFoundation)
import AVFoundation
import Foundation

/// FairPlay on Apple platforms: the thin `AVContentKeySessionDelegate` that forwards each
/// AVContentKeySession callback to a `FairPlayKeyHandling`: `FairPlayKeySession` for our KAS's
/// per-component sessions, or `FairPlayProfileKeySession` for any licence service by its
/// profile (JW, Cloud Video Kit, DRM-X; docs/fairplay.md "License-server profiles"). There
/// every decision is made (which
/// component a `skd://` URI names, when to ask for the SPC, what to send, when delivery is
/// reported). This file only translates between AVFoundation's types and the
/// `FairPlayKeyRequest` protocol; it is compiled only where AVFoundation exists, while
/// `FairPlayKeySession` is built and tested on every platform (docs/fairplay.md).
///
/// The caller starts one media session per component (`KASMediaService.startSession`, one
/// `playbackId`), keeps them alive with heartbeats and ends them when playback stops, exactly
/// as `ContentKeySession` does on the open path.
///
/// ```swift
/// let keys = AVContentKeySession(keySystem: .fairPlayStreaming)
/// let handler = FairPlayContentKeyDelegate(service: service, assetID: policyUUID, manifest: manifestBytes,
///                                          sessionIDs: ["video": videoSession, "audio": audioSession],
///                                          certificate: certificate, delegate: myReporter)
/// keys.setDelegate(handler, queue: handler.queue)
/// keys.addContentKeyRecipient(urlAsset)
///
/// // Another licence service, by its profile:
/// let jw = FairPlayLicenseClient(profile: try JWLicenseProfile(source: fairplaySource), client: client)
/// let other = FairPlayContentKeyDelegate(handler: FairPlayProfileKeySession(license: jw, delegate: myReporter))
/// ```
public final class FairPlayContentKeyDelegate: NSObject, AVContentKeySessionDelegate, @unchecked Sendable {
    public let queue = DispatchQueue(label: "FairPlayContentKeyDelegate")
    public let handler: any FairPlayKeyHandling
    private let lock = NSLock()
    /// One wrapper per AVContentKeyRequest, so its later callbacks reach the same identity.
    private var wrappers: [ObjectIdentifier: AVFairPlayKeyRequest] = [:]

    /// `sessionIDs`: component id to its started media session.
    public init(service: KASMediaService, assetID: String, manifest: Data, sessionIDs: [String: String],
                certificate: Data, delegate: (any ContentKeySessionDelegate)?) {
        handler = FairPlayKeySession(source: service, assetID: assetID, manifest: manifest, sessionIDs: sessionIDs,
                                     certificate: certificate, delegate: delegate)
    }

    /// Forwards to `handler` (a licence service's `FairPlayProfileKeySession`, for one).
    public init(handler: any FairPlayKeyHandling) {
        self.handler = handler
    }

    /// Our KAS's session, when this delegate was made for it.
    public var session: FairPlayKeySession? { handler as? FairPlayKeySession }

    public func contentKeySession(_ session: AVContentKeySession, didProvide keyRequest: AVContentKeyRequest) {
        let request = wrapper(keyRequest)
        Task { await self.handler.provide(request, renewal: false) }
    }

    public func contentKeySession(_ session: AVContentKeySession,
                                  didProvideRenewingContentKeyRequest keyRequest: AVContentKeyRequest) {
        let request = wrapper(keyRequest)
        Task { await self.handler.provide(request, renewal: true) }
    }

    public func contentKeySession(_ session: AVContentKeySession, contentKeyRequestDidSucceed keyRequest: AVContentKeyRequest) {
        handler.succeeded(wrapper(keyRequest, finished: true))
    }

    public func contentKeySession(_ session: AVContentKeySession, contentKeyRequest keyRequest: AVContentKeyRequest,
                                  didFailWithError err: Error) {
        handler.failed(wrapper(keyRequest, finished: true))
    }

    private func wrapper(_ request: AVContentKeyRequest, finished: Bool = false) -> AVFairPlayKeyRequest {
        lock.withLock {
            let id = ObjectIdentifier(request)
            let wrapper = wrappers[id] ?? AVFairPlayKeyRequest(request)
            wrappers[id] = finished ? nil : wrapper
            return wrapper
        }
    }
}

/// An AVContentKeyRequest as a `FairPlayKeyRequest`. AVContentKeyRequest is thread-safe for
/// responding; Swift does not know it.
final class AVFairPlayKeyRequest: FairPlayKeyRequest, @unchecked Sendable {
    let request: AVContentKeyRequest

    init(_ request: AVContentKeyRequest) { self.request = request }

    var keyIdentifier: String? { request.identifier as? String }

    func makeSPC(certificate: Data, contentIdentifier: Data) async throws(PlaybackError) -> Data {
        let spc: Data? = await withCheckedContinuation { continuation in
            request.makeStreamingContentKeyRequestData(forApp: certificate, contentIdentifier: contentIdentifier,
                                                       options: [AVContentKeyRequestProtocolVersionsKey: [1]]) { spc, _ in
                continuation.resume(returning: spc)
            }
        }
        guard let spc else { throw PlaybackError(.media, "AVFoundation made no SPC") }
        return spc
    }

    func process(_ response: FairPlayKeyResponse) {
        switch response {
        case .ckc(let ckc):
            request.processContentKeyResponse(AVContentKeyResponse(fairPlayStreamingKeyResponseData: ckc))
        case .failure(let error):
            request.processContentKeyResponseError(error)
        }
    }
}
#endif
