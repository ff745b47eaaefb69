import Foundation

/// The decisions of a FairPlay key delegate for any licence service, by its profile
/// (`FairPlayLicenseProfile`, docs/fairplay.md "License-server profiles"), apart from
/// AVFoundation so they are tested everywhere:
///
/// - the application certificate is fetched once, at the first key request, and reused;
/// - each initial or renewing request's SPC is made for the key URI's bytes after `skd://`,
///   sent as the profile says, and the CKC handed back; a key URI that is not `skd://`, a
///   refused certificate or licence, or a redirect answers the request with an error;
/// - delivery is reported once `expectedKeys` distinct key URIs had their initial CKC accepted
///   (`contentKeyRequestDidSucceed`), failure once at the first failed initial request, never
///   both; renewals report nothing.
public final class FairPlayProfileKeySession: FairPlayKeyHandling, @unchecked Sendable {
    public let license: FairPlayLicenseClient
    public let expectedKeys: Int
    private let reporter: KeyDeliveryReporter
    private let lock = NSLock()
    private var certificate: Data?
    private var requests: [ObjectIdentifier: (key: String, renewal: Bool)] = [:]
    private var accepted: [String] = []

    public init(license: FairPlayLicenseClient, expectedKeys: Int = 1, delegate: (any ContentKeySessionDelegate)?) {
        self.license = license
        self.expectedKeys = max(1, expectedKeys)
        reporter = KeyDeliveryReporter(delegate: delegate)
    }

    public func provide(_ request: any FairPlayKeyRequest, renewal: Bool) async {
        do throws(PlaybackError) {
            guard let keyURI = request.keyIdentifier else {
                throw PlaybackError(.invalidSource, "a key request has no key URI")
            }
            let contentIdentifier = try license.profile.contentIdentifier(keyURI: keyURI)
            lock.withLock { requests[ObjectIdentifier(request)] = (Self.label(keyURI), renewal) }
            let spc = try await request.makeSPC(certificate: try await applicationCertificate(), contentIdentifier: contentIdentifier)
            request.process(.ckc(try await license.ckc(keyURI: keyURI, spc: spc)))
        } catch {
            request.process(.failure(error))
            if !renewal { reporter.failed(error) }
        }
    }

    public func succeeded(_ request: any FairPlayKeyRequest) {
        let done = lock.withLock { () -> [String]? in
            guard let entry = requests[ObjectIdentifier(request)], !entry.renewal else { return nil }
            if !accepted.contains(entry.key) { accepted.append(entry.key) }
            return accepted.count == expectedKeys ? accepted : nil
        }
        if let done { reporter.delivered(done) }
    }

    public func failed(_ request: any FairPlayKeyRequest) {
        let renewal = lock.withLock { requests[ObjectIdentifier(request)]?.renewal ?? false }
        if !renewal { reporter.failed(PlaybackError(.media, "AVFoundation refused a content key")) }
    }

    private func applicationCertificate() async throws(PlaybackError) -> Data {
        if let cached = lock.withLock({ certificate }) { return cached }
        let fetched = try await license.certificate()
        lock.withLock { certificate = fetched }
        return fetched
    }

    /// A key URI without its query (a Cloud Video Kit URI carries the key id and IV there).
    static func label(_ keyURI: String) -> String { String(DeliveryURL.withoutQuery(keyURI)) }
}
