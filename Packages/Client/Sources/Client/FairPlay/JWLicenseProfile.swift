import Foundation

/// JW Player (a delivery source's `drm.fairplay`): the certificate from `certificateUrl` (raw
/// DER, no credential); the SPC posted raw to `processSpcUrl` as `application/octet-stream`
/// with no authorization header (the signed URL is its own); the CKC answered raw.
public struct JWLicenseProfile: FairPlayLicenseProfile {
    public let processSPCURL: String
    public let certificateURL: String

    public init(processSPCURL: String, certificateURL: String) {
        self.processSPCURL = processSPCURL
        self.certificateURL = certificateURL
    }

    /// From a delivery description's FairPlay source (`processSpcUrl`, `certificateUrl`).
    public init(source: DeliveryDescription.Source) throws(PlaybackError) {
        guard let fairplay = source.drm[.fairplay], let process = fairplay["processSpcUrl"],
              let certificate = fairplay["certificateUrl"] else {
            throw PlaybackError(.malformed, "the FairPlay source has no processSpcUrl and certificateUrl")
        }
        self.init(processSPCURL: try DeliveryURL.check(process, field: "processSpcUrl"),
                  certificateURL: try DeliveryURL.check(certificate, field: "certificateUrl"))
    }

    public func certificateRequest() throws(PlaybackError) -> TransportRequest {
        FairPlayLicenseFormat.certificateRequest(url: certificateURL)
    }

    public func certificate(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayLicenseFormat.rawCertificate(response, service: "JW")
    }

    public func licenseRequest(keyURI: String, spc: Data) throws(PlaybackError) -> TransportRequest {
        FairPlayLicenseFormat.rawSPCRequest(url: processSPCURL, spc: spc)
    }

    public func ckc(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayLicenseFormat.rawCKC(response, service: "JW")
    }
}
