import Foundation
import MediaDRMMedia

/// The decisions of a FairPlay key delegate, apart from AVFoundation so they build and are
/// tested everywhere (docs/fairplay.md "The Apple key delegate"). `FairPlayContentKeyDelegate`
/// forwards AVContentKeySession's callbacks here one for one:
///
/// - which component a request names: its key URI must be `skd://<this asset>/<component>`
///   (`SKDKeyURI`) for a component with a media session; anything else is answered with an error;
/// - when to ask for the SPC: on every initial or renewing request for such a component, with
///   the application certificate and `<policy uuid>/<component>` as the content identifier;
/// - what to send: the SPC as `spcData` on that component's media session, and the CKC back to
///   the request;
/// - when every component counts as delivered: only once AVFoundation accepted each component's
///   initial CKC (`contentKeyRequestDidSucceed`), never when the CKC is merely handed over;
/// - reporting (`ContentKeySessionDelegate`): delivered once, or failed once at the first failure
///   of an initial request, never both; renewals report nothing.
///
/// Thread-safe: AVFoundation calls back on the delegate queue, CKC answers arrive on other tasks.
public final class FairPlayKeySession: @unchecked Sendable {
    public let assetID: String
    /// The components with a media session, video first.
    public let components: [String]

    private let source: any FairPlayCKCSource
    private let manifest: Data
    private let sessionIDs: [String: String]
    private let certificate: Data
    private let reporter: KeyDeliveryReporter
    private let lock = NSLock()
    /// The requests answered so far, by identity: which component, and whether a renewal.
    private var requests: [ObjectIdentifier: (component: String, renewal: Bool)] = [:]
    private var accepted: Set<String> = []

    /// - Parameters:
    ///   - sessionIDs: component id to its started media session (one `playbackId`).
    ///   - certificate: the application certificate (`GET /media/v1/certificate`).
    public init(source: any FairPlayCKCSource, assetID: String, manifest: Data, sessionIDs: [String: String],
                certificate: Data, delegate: (any ContentKeySessionDelegate)?) {
        self.source = source
        self.assetID = assetID
        self.manifest = manifest
        self.sessionIDs = sessionIDs
        self.certificate = certificate
        self.reporter = KeyDeliveryReporter(delegate: delegate)
        let order = MediaComponentList.version2Order.map(\.id)
        components = sessionIDs.keys.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
    }

    /// `contentKeySession(_:didProvide:)` (`renewal` false) and
    /// `didProvideRenewingContentKeyRequest` (`renewal` true). Returns once the request was
    /// answered with a CKC or an error.
    public func provide(_ request: any FairPlayKeyRequest, renewal: Bool) async {
        guard let component = component(of: request), let sessionID = sessionIDs[component] else {
            refuse(request, PlaybackError(.invalidSource, "a key request names no component of this asset"), renewal: renewal)
            return
        }
        lock.withLock { requests[ObjectIdentifier(request)] = (component, renewal) }
        do throws(PlaybackError) {
            let spc = try await request.makeSPC(certificate: certificate, contentIdentifier: Data("\(assetID)/\(component)".utf8))
            let answer = try await source.requestCKC(assetID: assetID, component: component, sessionID: sessionID,
                                                     manifest: manifest, spc: spc)
            request.process(.ckc(answer.ckc))
        } catch {
            refuse(request, error, renewal: renewal)
        }
    }

    /// `contentKeySession(_:contentKeyRequestDidSucceed:)`: AVFoundation accepted the CKC. The
    /// last component's initial acceptance reports delivery.
    public func succeeded(_ request: any FairPlayKeyRequest) {
        let allAccepted = lock.withLock { () -> Bool in
            guard let entry = requests[ObjectIdentifier(request)], !entry.renewal else { return false }
            accepted.insert(entry.component)
            return accepted.count == components.count
        }
        if allAccepted { reporter.delivered(components) }
    }

    /// `contentKeySession(_:contentKeyRequest:didFailWithError:)`: AVFoundation refused the key.
    public func failed(_ request: any FairPlayKeyRequest) {
        let renewal = lock.withLock { requests[ObjectIdentifier(request)]?.renewal ?? false }
        if !renewal { reporter.failed(PlaybackError(.media, "AVFoundation refused a content key")) }
    }

    /// The component of this asset the request's key URI names, when it has a media session.
    func component(of request: any FairPlayKeyRequest) -> String? {
        guard let text = request.keyIdentifier, let uri = SKDKeyURI(servedKey: text), uri.policyUUID == assetID,
              sessionIDs[uri.componentID] != nil else { return nil }
        return uri.componentID
    }

    private func refuse(_ request: any FairPlayKeyRequest, _ error: PlaybackError, renewal: Bool) {
        request.process(.failure(error))
        if !renewal { reporter.failed(error) }
    }
}
