import Foundation
import MediaDRMCrypto
import MediaDRMFPSv2
import MediaDRMTDF

/// The checks every profile makes of its options before it reads any media, each written once.
extension PackageOptions {
    /// The KAS public key (RSA or P-256).
    func kasPublicKey() throws(PackagerError) -> KASPublicKey {
        do { return try KASPublicKey(pemRepresentation: kasPublicKeyPEM) } catch {
            throw PackagerError(.invalidArgument, "the KAS public key is not a usable PEM key: \(error.reason)")
        }
    }

    /// The KAS RSA key of a profile whose manifest is fps-v2's (`wrapped`, RSA-OAEP SHA-1), and the
    /// key service URL that manifest admits: an https origin, or http to a loopback host.
    func fpsV2KeyService(profile: String) throws(PackagerError) -> RSA.PublicKey {
        guard case .rsa(let rsaKey) = try kasPublicKey() else {
            throw PackagerError(.invalidArgument, "\(profile) wraps keys with RSA-OAEP; the KAS public key must be RSA (2048 bits or more)")
        }
        guard KeyServiceURL.normalize(kasURL) != nil else {
            throw PackagerError(.invalidArgument,
                                "the KAS URL must be an https origin (scheme, host and optional port; no path, query or fragment), or http to localhost (fps-v2 §5.2 #2)")
        }
        return rsaKey
    }

    /// The KAS URL of a Standard TDF's key access: an absolute http(s) URL.
    func checkTDFKASURL() throws(PackagerError) {
        guard let url = URL(string: kasURL), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host != nil else {
            throw PackagerError(.invalidArgument, "the KAS URL must be an absolute http(s) URL")
        }
    }

    /// The creator's policy, which every profile needs.
    func requiredPolicy(profile: String) throws(PackagerError) -> Data {
        guard let policyJSON else {
            throw PackagerError(.invalidPolicy, "\(profile) needs a policy with body.dataAttributes (--policy FILE)")
        }
        return policyJSON
    }

    func checkSegmentDuration() throws(PackagerError) {
        guard segmentDuration > 0, segmentDuration.isFinite, segmentDuration <= 3600 else {
            throw PackagerError(.invalidArgument, "the segment duration must be between 0 and 3600 seconds")
        }
    }
}
