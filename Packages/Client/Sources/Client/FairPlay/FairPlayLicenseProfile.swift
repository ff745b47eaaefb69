// "§" cites draft-arkavo-tdf-fairplay-01 (the fps-v2 specification) where no other document is named.
import Foundation

/// How one licence service speaks FairPlay (docs/fairplay.md "License-server profiles"): how to
/// ask for the application certificate, how to send an SPC, how to read the CKC. Building and
/// parsing only, plain Swift with no I/O, so every dialect is tested on Linux against a stub;
/// `FairPlayLicenseClient` sends the requests, and `FairPlayProfileKeySession` (behind the
/// AVFoundation adapter) drives them from key requests.
///
/// Profiles: `KASLicenseProfile` (ours, `/media/v1`), `JWLicenseProfile`,
/// `CloudVideoKitLicenseProfile`, `DRMXLicenseProfile`.
public protocol FairPlayLicenseProfile: Sendable {
    /// The request for the application certificate.
    func certificateRequest() throws(PlaybackError) -> TransportRequest
    /// The application certificate (DER) from the certificate answer.
    func certificate(from response: TransportResponse) throws(PlaybackError) -> Data
    /// The request carrying `spc` for the key the playlist's `keyURI` (`skd://…`) names.
    func licenseRequest(keyURI: String, spc: Data) throws(PlaybackError) -> TransportRequest
    /// The CKC from the licence answer.
    func ckc(from response: TransportResponse) throws(PlaybackError) -> Data
}

extension FairPlayLicenseProfile {
    /// The content identifier the SPC is made for: the key URI's bytes after `skd://` (what
    /// every profile here expects), refused when empty or not an `skd://` URI.
    public func contentIdentifier(keyURI: String) throws(PlaybackError) -> Data {
        guard keyURI.hasPrefix(FairPlayLicenseFormat.skdScheme), keyURI.utf8.count > FairPlayLicenseFormat.skdScheme.utf8.count,
              keyURI.utf8.count <= 2048 else {
            throw PlaybackError(.invalidSource, "a FairPlay key URI is not a non-empty skd:// URI of at most 2 KiB")
        }
        return Data(keyURI.utf8.dropFirst(FairPlayLicenseFormat.skdScheme.utf8.count))
    }
}

/// The byte formats the profiles share, each written once.
enum FairPlayLicenseFormat {
    static let skdScheme = "skd://"
    static let octetStream = "application/octet-stream"
    /// The largest certificate or CKC read (a CKC is at most 1 MiB, fps-v2 §10.2).
    static let maxBytes = 1 << 20

    /// A POST of the raw SPC, as JW, DRM-X and our signed licence URL take it.
    static func rawSPCRequest(url: String, spc: Data, headers: TransportHeaders = TransportHeaders(),
                              credential: Credential? = nil) -> TransportRequest {
        var all = TransportHeaders([HTTPHeaderField(name: "Content-Type", value: octetStream)])
        for field in headers { all.add(name: field.name, value: field.value) }
        return TransportRequest(method: .post, url: url, headers: all, body: spc, credential: credential, maxResponseBytes: maxBytes)
    }

    /// A GET of the certificate without any credential (it is public).
    static func certificateRequest(url: String, headers: TransportHeaders = TransportHeaders()) -> TransportRequest {
        TransportRequest(url: url, headers: headers, maxResponseBytes: maxBytes)
    }

    /// A raw CKC body: 1 byte to 1 MiB, taken as is.
    static func rawCKC(_ response: TransportResponse, service: String) throws(PlaybackError) -> Data {
        guard !response.body.isEmpty, response.body.count <= maxBytes else {
            throw PlaybackError(.malformed, "the \(service) licence answer is not a CKC of 1 byte to 1 MiB")
        }
        return response.body
    }

    /// A raw DER certificate body: 1 byte to 1 MiB.
    static func rawCertificate(_ response: TransportResponse, service: String) throws(PlaybackError) -> Data {
        guard !response.body.isEmpty, response.body.count <= maxBytes else {
            throw PlaybackError(.malformed, "the \(service) certificate answer is empty or larger than 1 MiB")
        }
        return response.body
    }
}
