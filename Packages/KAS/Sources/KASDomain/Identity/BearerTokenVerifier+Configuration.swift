import Foundation
import MediaDRMCrypto
import MediaDRMJOSE

extension BearerTokenVerifier {
    /// The verifier `kas serve` uses: every configured issuer with its keys loaded now (JWKS
    /// file, PEM file, HS256 secret from a file or an environment variable), plus the key ring's
    /// dev issuer (`DevIssuer.issuer`, audience `DevIssuer.audience`) when the ring has one and
    /// the configuration does not set `devIssuer` to false. Issuers with `discovery: true` get a
    /// `DiscoveredKeySet`, first read when the application starts `keySetRefresher`.
    public init(configuration: KASConfiguration, keyRing: KeyRing?, environment: [String: String] = [:],
                clock: @escaping @Sendable () -> Date = { Date() }) throws(KASConfigurationError) {
        var trusted: [TrustedIssuer] = []
        for (position, issuer) in configuration.issuers.enumerated() {
            if case .discovery(let discovery) = issuer.keySource {
                // Read by the refresher when the application starts, not here: loading a
                // configuration never touches the network.
                let keySet = DiscoveredKeySet(issuer: issuer.issuer, discovery: discovery, clock: clock)
                trusted.append(TrustedIssuer(issuer: issuer.issuer, audiences: Set(issuer.audiences), keySet: keySet))
                continue
            }
            let keys = try Self.keys(for: issuer, position: position, environment: environment)
            trusted.append(TrustedIssuer(issuer: issuer.issuer, audiences: Set(issuer.audiences), keys: keys))
        }
        if configuration.devIssuer, let devIssuer = keyRing?.devIssuer {
            trusted.append(TrustedIssuer(issuer: DevIssuer.issuer, audiences: [DevIssuer.audience],
                                         keys: [devIssuer.verificationKey]))
        }
        self.init(issuers: trusted, clock: clock)
    }

    private static func keys(for issuer: IssuerConfiguration, position: Int,
                             environment: [String: String]) throws(KASConfigurationError) -> [JWSVerificationKey] {
        let name = "issuers[\(position)]"
        switch issuer.keySource {
        case .jwksFile(let path):
            let data = try read(path, "\(name).jwksFile")
            do {
                let keys = try JWKSet(jsonData: data, skippingUnsupportedKeys: true).verificationKeys()
                guard !keys.isEmpty else {
                    throw KASConfigurationError(.invalidValue, "\(name).jwksFile '\(path)' has no signature verification keys")
                }
                return keys
            } catch {
                if let configurationError = error as? KASConfigurationError { throw configurationError }
                throw KASConfigurationError(.invalidValue, "\(name).jwksFile '\(path)' is not a usable JWK Set: \(String(describing: error))")
            }
        case .pemFile(let path):
            let data = try read(path, "\(name).pemFile")
            do {
                return [try JWSVerificationKey(pemRepresentation: String(decoding: data, as: UTF8.self))]
            } catch {
                throw KASConfigurationError(.invalidValue, "\(name).pemFile '\(path)': \(error.reason)")
            }
        case .hs256SecretFile(let path):
            return [try hmacKey(read(path, "\(name).hs256SecretFile"), "\(name).hs256SecretFile '\(path)'")]
        case .hs256SecretEnvironment(let variable):
            guard let secret = environment[variable], !secret.isEmpty else {
                throw KASConfigurationError(.missingValue, "\(name).hs256SecretEnv names '\(variable)', which is not set")
            }
            return [try hmacKey(Data(secret.utf8), "\(name).hs256SecretEnv '\(variable)'")]
        case .discovery:
            return []
        }
    }

    private static func hmacKey(_ secret: Data, _ what: String) throws(KASConfigurationError) -> JWSVerificationKey {
        do {
            return try JWSVerificationKey(hmac: SecretKey(data: secret))
        } catch {
            // The JOSE reason describes the rule broken (length, PEM text), never the secret.
            throw KASConfigurationError(.invalidValue, "\(what): \(error.reason)")
        }
    }

    private static func read(_ path: String, _ what: String) throws(KASConfigurationError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KASConfigurationError(.unreadableFile, "\(what) '\(path)' cannot be read")
        }
        return data
    }
}
