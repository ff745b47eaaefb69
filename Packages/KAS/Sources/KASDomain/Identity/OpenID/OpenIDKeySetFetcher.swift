import Foundation
import MediaDRMJOSE
import MediaDRMJSON

/// A key set read from a provider: the verification keys, their ids (for the log) and how long
/// to use them (`KeySetLifetime`).
package struct FetchedKeySet: Sendable {
    package var keys: [JWSVerificationKey]
    package var keyIDs: [String]
    package var lifetimeSeconds: TimeInterval
}

/// Reads an issuer's keys as a relying party does (OpenID Connect Discovery 1.0): the document at
/// `<issuer>/.well-known/openid-configuration` (§4.1), whose `issuer` must be exactly the
/// configured one (§4.3), then the JWK Set at its `jwks_uri`, both over https and bounded in size.
package struct OpenIDKeySetFetcher: Sendable {
    /// Largest discovery document read: real ones are a few kilobytes.
    package static let maximumDiscoveryBytes = 64 * 1024
    /// Largest key set read: a few dozen RSA keys fit in a tenth of it.
    package static let maximumKeySetBytes = 256 * 1024
    /// Time limit of a background fetch (the discovery document and the key set together).
    package static let timeoutSeconds: Double = 10

    package let issuer: String
    package let caFile: String?
    package let client: any ProviderHTTPSClient

    package init(issuer: String, caFile: String?, client: any ProviderHTTPSClient) {
        self.issuer = issuer
        self.caFile = caFile
        self.client = client
    }

    /// §4.1: the issuer with any trailing `/` removed, then the well-known path.
    package var discoveryURL: String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// Both documents within `timeoutSeconds` in all.
    package func fetch(timeoutSeconds: Double = OpenIDKeySetFetcher.timeoutSeconds) throws(OpenIDProviderError) -> FetchedKeySet {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        let discovery = try client.get(ProviderHTTPSRequest(url: discoveryURL, caFile: caFile,
                                                            maximumBodyBytes: Self.maximumDiscoveryBytes,
                                                            timeoutSeconds: timeoutSeconds))
        let keySetURL = try jwksURI(in: discovery.body)
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else {
            throw OpenIDProviderError(.transport, "the provider did not answer within \(timeoutSeconds) s")
        }
        let answer = try client.get(ProviderHTTPSRequest(url: keySetURL, caFile: caFile,
                                                         maximumBodyBytes: Self.maximumKeySetBytes,
                                                         timeoutSeconds: remaining))
        let keys: [JWSVerificationKey]
        do throws(JOSEError) {
            keys = try JWKSet(jsonData: answer.body, skippingUnsupportedKeys: true).verificationKeys()
        } catch {
            throw OpenIDProviderError(.malformedDocument, "the key set at \(CurlProviderHTTPSClient.shown(keySetURL)) "
                                      + "is not a usable JWK Set: \(error.reason)")
        }
        guard !keys.isEmpty else {
            throw OpenIDProviderError(.noUsableKeys, "the key set at \(CurlProviderHTTPSClient.shown(keySetURL)) has no "
                                      + "RS256 or ES256 signature key")
        }
        return FetchedKeySet(keys: keys, keyIDs: keys.compactMap(\.keyID),
                             lifetimeSeconds: KeySetLifetime.seconds(cacheControl: answer.cacheControl))
    }

    /// The `jwks_uri` of a discovery document whose `issuer` is ours.
    private func jwksURI(in body: Data) throws(OpenIDProviderError) -> String {
        let shownURL = CurlProviderHTTPSClient.shown(discoveryURL)
        guard let parsed = try? JSONParser.parse(Array(body)), case .object(let document) = parsed else {
            throw OpenIDProviderError(.malformedDocument, "the discovery document at \(shownURL) is not a JSON object")
        }
        guard case .string(let issuer)? = document["issuer"] else {
            throw OpenIDProviderError(.malformedDocument, "the discovery document at \(shownURL) has no string 'issuer'")
        }
        guard issuer == self.issuer else {
            throw OpenIDProviderError(.issuerMismatch, "the discovery document at \(shownURL) names issuer "
                                      + "'\(issuer.prefix(200))', not the configured '\(self.issuer)'")
        }
        guard case .string(let uri)? = document["jwks_uri"] else {
            throw OpenIDProviderError(.malformedDocument, "the discovery document at \(shownURL) has no string 'jwks_uri'")
        }
        guard HTTPSOrigin(uri) != nil else {
            throw OpenIDProviderError(.plainHTTP, "the discovery document at \(shownURL) names jwks_uri "
                                      + "\(CurlProviderHTTPSClient.shown(uri)), not an https:// URL")
        }
        return uri
    }
}
