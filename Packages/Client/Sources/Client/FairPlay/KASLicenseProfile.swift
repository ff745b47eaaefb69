import Foundation
import MediaDRMJSON
import MediaDRMMedia

/// Ours (docs/protocol.md `/media/v1`): the certificate from `GET /media/v1/certificate` (no
/// credential, raw DER); the SPC as `spcData` of `POST /media/v1/key-request` on the media
/// session of the component the key URI (`skd://<policy uuid>/<component>`) names, with the
/// bearer token; the CKC is the answer's `wrappedKey`.
public struct KASLicenseProfile: FairPlayLicenseProfile {
    public let baseURL: String
    let credential: Credential
    public let assetID: String
    let manifest: Data
    let sessionIDs: [String: String]

    /// - Parameter sessionIDs: component id to its started media session (secret).
    public init(baseURL: String, credential: Credential, assetID: String, manifest: Data, sessionIDs: [String: String]) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.credential = credential
        self.assetID = assetID
        self.manifest = manifest
        self.sessionIDs = sessionIDs
    }

    public func certificateRequest() throws(PlaybackError) -> TransportRequest {
        FairPlayLicenseFormat.certificateRequest(url: "\(baseURL)/media/v1/certificate")
    }

    public func certificate(from response: TransportResponse) throws(PlaybackError) -> Data {
        try FairPlayLicenseFormat.rawCertificate(response, service: "key service")
    }

    public func licenseRequest(keyURI: String, spc: Data) throws(PlaybackError) -> TransportRequest {
        guard let uri = SKDKeyURI(servedKey: keyURI), uri.policyUUID == assetID, let sessionID = sessionIDs[uri.componentID] else {
            throw PlaybackError(.invalidSource, "the key URI names no component of this asset with a media session")
        }
        let body = MediaKeyRequestBody(assetID: assetID, component: uri.componentID, sessionID: sessionID, manifest: manifest,
                                       delivery: .spc(spc)).jsonValue
        return TransportRequest(method: .post, url: "\(baseURL)/media/v1/key-request", headers: ["Content-Type": "application/json"],
                                body: JSONWriter.write(body, options: [.sortedKeys]), credential: credential,
                                maxResponseBytes: FairPlayLicenseFormat.maxBytes * 2)
    }

    public func ckc(from response: TransportResponse) throws(PlaybackError) -> Data {
        guard let value = try? JSONParser.parse(response.body), let answer = MediaKeyAnswer(json: value) else {
            throw PlaybackError(.malformed, "the key answer is not a success with a CKC")
        }
        return answer.wrappedKey
    }
}
