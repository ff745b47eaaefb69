import Foundation

/// Sends a `FairPlayLicenseProfile`'s requests over `HTTPClient`: redirects are refused (never
/// followed, so an SPC or a token is never re-sent elsewhere), statuses map as for the key
/// service (`PlaybackError.keyService`, a refusal code kept), and nothing of an SPC, a CKC, a
/// token or a server body reaches an error.
public struct FairPlayLicenseClient: Sendable {
    public let profile: any FairPlayLicenseProfile
    let client: HTTPClient

    public init(profile: any FairPlayLicenseProfile, client: HTTPClient) {
        self.profile = profile
        self.client = client
    }

    /// The application certificate, as DER.
    public func certificate() async throws(PlaybackError) -> Data {
        let response = try await ServiceExchange.send(client, try profile.certificateRequest(), route: "FairPlay certificate")
        return try profile.certificate(from: response)
    }

    /// The CKC for `spc`, made for the key `keyURI` names.
    public func ckc(keyURI: String, spc: Data) async throws(PlaybackError) -> Data {
        let response = try await ServiceExchange.send(client, try profile.licenseRequest(keyURI: keyURI, spc: spc),
                                                      route: "FairPlay licence")
        return try profile.ckc(from: response)
    }

    /// Asks a DRM-X style playback-session endpoint for a session and returns its profile.
    public static func drmxSession(_ endpoint: DRMXLicenseProfile.Endpoint, contentID: String,
                                   client: HTTPClient) async throws(PlaybackError) -> DRMXLicenseProfile {
        let response = try await ServiceExchange.send(client, endpoint.sessionRequest(contentID: contentID),
                                                      route: "DRM-X playback session")
        return try DRMXLicenseProfile(endpoint: endpoint, sessionAnswer: response)
    }

    /// Releases a DRM-X session (best effort at the end of watching; the error is returned).
    public static func release(_ profile: DRMXLicenseProfile, client: HTTPClient) async throws(PlaybackError) {
        _ = try await ServiceExchange.send(client, profile.releaseRequest(), route: "DRM-X session release")
    }
}
