/// A trusted token issuer, as one entry of the configuration's `issuers` array:
///
/// ```json
/// {"issuer": "https://idp.example.com", "audience": "https://kas.example.com", "jwksFile": "idp-jwks.json"}
/// ```
/// - `issuer` (string, required): the exact `iss` of its tokens.
/// - `audience` (string or non-empty array of strings, required): a token's `aud` must name one.
/// - exactly one key source:
///   - `jwksFile`: a JWK Set (RS256 / ES256 keys, selected by the token's `kid`; keys of other
///     types or for other uses, such as encryption keys an IdP also publishes, are skipped);
///   - `pemFile`: one RSA (RS256) or P-256 (ES256) public key in PEM;
///   - `hs256SecretFile`: a file whose bytes are the HS256 secret (at least 32 bytes);
///   - `hs256SecretEnv`: the name of an environment variable holding the HS256 secret;
///   - `discovery: true`: the keys of the OpenID provider at `issuer` (an `https://` URL), read
///     from its `/.well-known/openid-configuration` and `jwks_uri` and kept fresh while the KAS
///     runs (`DiscoveredKeySet`, docs/kas.md "Issuers by discovery"); with it, optionally
///     `caFile` (a PEM bundle of the CAs to trust instead of the system's) and `maxStaleSeconds`
///     (how long the last good key set keeps serving once it is due for refresh and the provider
///     cannot be reached; `OpenIDDiscovery.defaultMaxStaleSeconds` when absent).
///   Secrets are never written in the configuration file itself.
/// Relative file paths are resolved against the configuration file's directory.
public struct IssuerConfiguration: Sendable, Equatable {
    public enum KeySource: Sendable, Equatable {
        case jwksFile(String)
        case pemFile(String)
        case hs256SecretFile(String)
        case hs256SecretEnvironment(String)
        case discovery(OpenIDDiscovery)
    }

    public var issuer: String
    public var audiences: [String]
    public var keySource: KeySource

    public init(issuer: String, audiences: [String], keySource: KeySource) {
        self.issuer = issuer
        self.audiences = audiences
        self.keySource = keySource
    }
}

/// How an issuer configured with `discovery: true` is reached.
public struct OpenIDDiscovery: Sendable, Equatable {
    /// Six hours: a provider outage of an afternoon does not lock viewers out, while a key the
    /// provider removed is not trusted for days.
    public static let defaultMaxStaleSeconds = 6 * 3600
    /// `maxStaleSeconds` from one minute to one week.
    public static let maxStaleSecondsRange = 60...(7 * 86400)

    /// A PEM file of the CAs that sign the provider's certificate; nil trusts the system's bundle.
    public var caFile: String?
    /// How long past its refresh time the last good key set keeps verifying tokens while the
    /// provider cannot be reached; after that the issuer's tokens are refused.
    public var maxStaleSeconds: Int

    public init(caFile: String? = nil, maxStaleSeconds: Int = OpenIDDiscovery.defaultMaxStaleSeconds) {
        self.caFile = caFile
        self.maxStaleSeconds = maxStaleSeconds
    }
}
