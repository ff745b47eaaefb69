import Foundation
import MediaDRMJSON

/// DRM-X: the app's backend (the customer's playback-session endpoint) is asked for a session
/// with the customer's own headers, and answers where the certificate, the licence and the
/// release are (our playback-answer members, `PlaybackGrant`, docs/delivery.md); the
/// certificate comes raw from `certificateUrl`, the SPC goes raw to `licenseUrl` and the CKC
/// comes back raw, both untouched (no base64, no JSON); the session is released with
/// `DELETE releaseUrl` and the customer's headers when watching ends.
public struct DRMXLicenseProfile: FairPlayLicenseProfile {
    /// The customer's playback-session endpoint and what the app sends it.
    public struct Endpoint: Sendable {
        public let url: String
        /// Headers the customer's backend wants on the session and release requests.
        public let customerHeaders: TransportHeaders
        /// The customer's bearer token, when its backend wants `Authorization: Bearer`.
        let customerCredential: Credential?
        public let clientPlatform: String

        public init(url: String, customerHeaders: TransportHeaders = TransportHeaders(), customerCredential: Credential? = nil,
                    clientPlatform: String = "ios") {
            self.url = url
            self.customerHeaders = customerHeaders
            self.customerCredential = customerCredential
            self.clientPlatform = clientPlatform
        }

        /// `POST` the endpoint for `contentID`: `{clientPlatform, contentId, contentType,
        /// drmSystem: "fairplay", manifestTypes: ["hls"]}`.
        public func sessionRequest(contentID: String, contentType: String = "vod") -> TransportRequest {
            let body: JSONValue = .object(JSONObject([
                ("clientPlatform", .string(clientPlatform)), ("contentId", .string(contentID)),
                ("contentType", .string(contentType)), ("drmSystem", .string(DRMSystem.fairplay.playbackName)),
                ("manifestTypes", .array([.string("hls")])),
            ]))
            var headers = TransportHeaders([HTTPHeaderField(name: "Content-Type", value: "application/json")])
            for field in customerHeaders { headers.add(name: field.name, value: field.value) }
            return TransportRequest(method: .post, url: url, headers: headers, body: JSONWriter.write(body, options: [.sortedKeys]),
                                    credential: customerCredential, maxResponseBytes: DeliveryJSON.maxBytes)
        }
    }

    public let endpoint: Endpoint
    public let session: PlaybackGrant

    /// From the endpoint's session answer, which must be a FairPlay session with a certificate URL.
    public init(endpoint: Endpoint, sessionAnswer: TransportResponse) throws(PlaybackError) {
        let grant = try PlaybackGrant(json: sessionAnswer.body)
        guard grant.drmSystem == .fairplay, grant.certificateURL != nil else {
            throw PlaybackError(.malformed, "the DRM-X session answer is not a FairPlay session with a certificateUrl")
        }
        self.endpoint = endpoint
        session = grant
    }

    public func certificateRequest() throws(PlaybackError) -> TransportRequest {
        guard let url = session.certificateURL else { throw PlaybackError(.malformed, "the DRM-X session has no certificateUrl") }
        return FairPlayLicenseFormat.certificateRequest(url: url)
    }

    public func certificate(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayLicenseFormat.rawCertificate(response, service: "DRM-X")
    }

    public func licenseRequest(keyURI: String, spc: Data) throws(PlaybackError) -> TransportRequest {
        FairPlayLicenseFormat.rawSPCRequest(url: session.licenseURL, spc: spc)
    }

    public func ckc(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayLicenseFormat.rawCKC(response, service: "DRM-X")
    }

    /// `DELETE releaseUrl` with the customer's headers: ends the session when watching ends.
    public func releaseRequest() -> TransportRequest {
        TransportRequest(method: .delete, url: session.releaseURL, headers: endpoint.customerHeaders,
                         credential: endpoint.customerCredential)
    }
}
