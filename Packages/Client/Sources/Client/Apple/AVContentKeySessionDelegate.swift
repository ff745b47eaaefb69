#if canImport(AVFoundation)
import AVFoundation
import Foundation

/// FairPlay on Apple platforms: an `AVContentKeySessionDelegate` that answers each
/// `skd://<policy uuid>/<component>` key request through the KAS key-request route.
///
/// For each request it asks AVFoundation for the SPC (`makeStreamingContentKeyRequestData`, with
/// the application certificate from `GET /media/v1/certificate` and `<policy uuid>/<component>`
/// as the content identifier), sends it as `spcData` on the component's own media session
/// (`KASMediaService.requestCKC`), and hands the CKC back to AVFoundation. The reporting rules
/// are those of `ContentKeySession`: `onKeyDelivered` once, when every component's CKC was
/// accepted; `onKeyFailed` once, at the first failure; never both; renewals report nothing.
///
/// The caller starts one media session per component (`KASMediaService.startSession`, one
/// `playbackId`), keeps them alive with heartbeats and ends them when playback stops, exactly
/// as `ContentKeySession` does on the open path. Compiled only where AVFoundation exists; it
/// is not built or tested on Linux.
///
/// ```swift
/// let keys = AVContentKeySession(keySystem: .fairPlayStreaming)
/// let handler = FairPlayContentKeyDelegate(service: service, assetID: policyUUID, manifest: manifestBytes,
///                                          sessionIDs: ["video": videoSession, "audio": audioSession],
///                                          certificate: certificate, delegate: myReporter)
/// keys.setDelegate(handler, queue: handler.queue)
/// keys.addContentKeyRecipient(urlAsset)
/// ```
public final class FairPlayContentKeyDelegate: NSObject, AVContentKeySessionDelegate, @unchecked Sendable {
    public let queue = DispatchQueue(label: "FairPlayContentKeyDelegate")
    private let service: KASMediaService
    private let assetID: String
    private let manifest: Data
    private let sessionIDs: [String: String]
    private let certificate: Data
    private let reporter: KeyDeliveryReporter
    private let lock = NSLock()
    private var accepted: Set<String> = []

    /// `sessionIDs`: component id to its started media session.
    public init(service: KASMediaService, assetID: String, manifest: Data, sessionIDs: [String: String],
                certificate: Data, delegate: (any ContentKeySessionDelegate)?) {
        self.service = service
        self.assetID = assetID
        self.manifest = manifest
        self.sessionIDs = sessionIDs
        self.certificate = certificate
        self.reporter = KeyDeliveryReporter(delegate: delegate)
    }

    public func contentKeySession(_ session: AVContentKeySession, didProvide keyRequest: AVContentKeyRequest) {
        answer(keyRequest, renewal: false)
    }

    public func contentKeySession(_ session: AVContentKeySession,
                                  didProvideRenewingContentKeyRequest keyRequest: AVContentKeyRequest) {
        answer(keyRequest, renewal: true)
    }

    public func contentKeySession(_ session: AVContentKeySession, contentKeyRequest keyRequest: AVContentKeyRequest,
                                  didFailWithError err: Error) {
        reporter.failed(PlaybackError(.media, "AVFoundation refused a content key"))
    }

    /// `skd://<policy uuid>/<component>`: the component, when the asset is ours and it has a session.
    private func component(of request: AVContentKeyRequest) -> String? {
        guard let uri = request.identifier as? String, uri.hasPrefix("skd://") else { return nil }
        let parts = uri.dropFirst("skd://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, String(parts[0]) == assetID, sessionIDs[String(parts[1])] != nil else { return nil }
        return String(parts[1])
    }

    private func answer(_ request: AVContentKeyRequest, renewal: Bool) {
        guard let component = component(of: request), let sessionID = sessionIDs[component] else {
            fail(request, PlaybackError(.invalidSource, "a key request names no component of this asset"), renewal: renewal)
            return
        }
        let contentID = Data("\(assetID)/\(component)".utf8)
        request.makeStreamingContentKeyRequestData(forApp: certificate, contentIdentifier: contentID,
                                                   options: [AVContentKeyRequestProtocolVersionsKey: [1]]) { spc, _ in
            guard let spc else {
                self.fail(request, PlaybackError(.media, "AVFoundation made no SPC"), renewal: renewal)
                return
            }
            let box = RequestBox(request)
            Task {
                do throws(PlaybackError) {
                    let answer = try await self.service.requestCKC(assetID: self.assetID, component: component,
                                                                   sessionID: sessionID, manifest: self.manifest, spc: spc)
                    box.request.processContentKeyResponse(AVContentKeyResponse(fairPlayStreamingKeyResponseData: answer.ckc))
                    if !renewal { self.accept(component) }
                } catch {
                    self.fail(box.request, error, renewal: renewal)
                }
            }
        }
    }

    private func accept(_ component: String) {
        let all = lock.withLock { () -> Bool in
            accepted.insert(component)
            return accepted.count == sessionIDs.count
        }
        if all { reporter.delivered(sessionIDs.keys.sorted { $0 == "video" && $1 != "video" }) }
    }

    private func fail(_ request: AVContentKeyRequest, _ error: PlaybackError, renewal: Bool) {
        request.processContentKeyResponseError(error)
        if !renewal { reporter.failed(error) }
    }
}

/// AVContentKeyRequest is thread-safe for responding; Swift does not know it.
private final class RequestBox: @unchecked Sendable {
    let request: AVContentKeyRequest
    init(_ request: AVContentKeyRequest) { self.request = request }
}
#endif
